import CaptureKitCore
import CaptureKitMedia
import Foundation
import Glibc

extension MediaLibrary {
    /// Video codecs the library takes (FFmpeg's names).
    package static let videoCodecs: [String] = ["h264", "hevc", "mjpeg", "mpeg4", "vp8", "vp9", "av1", "prores"]
    /// Containers the library takes (FFmpeg's demuxer names) and the extensions their files
    /// may keep; the first is used when the source's extension is not among them.
    package static let containers: [String: [String]] = [
        "mov,mp4,m4a,3gp,3g2,mj2": ["mov", "mp4", "m4v"],
        "matroska,webm": ["mkv", "webm"],
        "avi": ["avi"],
    ]

    /// Whether the movie at `url` can be saved with ``saveVideo(at:move:)-5et0o``
    /// (`UIVideoAtPathIsCompatibleWithSavedPhotosAlbum`): a readable file that FFmpeg opens as
    /// a QuickTime/MP4, Matroska/WebM or AVI movie with a video stream in H.264, HEVC, MJPEG,
    /// MPEG-4, VP8, VP9, AV1 or ProRes. Otherwise `.incompatible` with the reason: a missing
    /// file, a folder, an unreadable or empty file, not media, a still image, no video stream
    /// (audio only), or a codec or container the library does not take. Reads the file's
    /// header only.
    public func isVideoCompatible(at url: URL) -> VideoCompatibility {
        Self.inspectMovie(at: url).compatibility
    }

    /// The compatibility of the movie at `url` and, when compatible, FFmpeg's container name.
    package static func inspectMovie(at url: URL) -> (compatibility: VideoCompatibility, container: String?) {
        func no(_ reason: String) -> (VideoCompatibility, String?) { (.incompatible(reason: reason), nil) }
        guard url.isFileURL else { return no("\(url) is not a local file") }
        let path = url.standardizedFileURL.path
        var status = stat()
        guard stat(path, &status) == 0 else {
            let failure = errno
            return no(failure == ENOENT ? "there is no file at \(path)" : "cannot read \(path): \(String(cString: strerror(failure)))")
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return no("\(path) is a folder, not a movie file")
        default: return no("\(path) is not a regular file")
        }
        guard access(path, R_OK) == 0 else { return no("cannot read \(path): \(String(cString: strerror(errno)))") }
        guard status.st_size > 0 else { return no("\(path) is empty") }
        let info: MediaFileInfo
        do {
            info = try MediaFileInfo(contentsOf: URL(fileURLWithPath: path), countingFrames: false)
        } catch {
            switch error.code {
            case .corruptFile: return no("\(path) is damaged: \(error.message)")
            case .fileError: return no("cannot read \(path): \(error.message)")
            default: return no("\(path) is not a media file FFmpeg can read")
            }
        }
        let container = info.container
        if container.hasSuffix("_pipe") || container == "image2" {
            return no("\(path) is a still image (\(container)), not a movie")
        }
        guard let video = info.videoStream else {
            return no(info.audioStream != nil ? "\(path) has no video stream (audio only)" : "\(path) has no video stream")
        }
        guard videoCodecs.contains(video.codec) else {
            return no("\(path)'s video codec \(video.codec) is not one the library takes (\(videoCodecs.joined(separator: ", ")))")
        }
        guard containers[container] != nil else {
            return no("\(path)'s container \(container) is not one the library takes (QuickTime/MP4, Matroska/WebM, AVI)")
        }
        return (.compatible, container)
    }

    /// The extension a movie in `container` is saved with: the source's when the container
    /// allows it (`.mp4` stays `.mp4`), else the container's usual one.
    package static func movieExtension(container: String, sourceExtension: String) -> String {
        let allowed = containers[container] ?? ["mov"]
        let given = sourceExtension.lowercased()
        return allowed.contains(given) ? given : allowed[0]
    }
}
