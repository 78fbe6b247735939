import Foundation
@testable import CaptureKit

// Media for the AssetImageGenerator suite, made by the ffmpeg command line, and ffmpeg's own
// decodes of them: the oracles thumbnails are compared with.

enum ThumbnailFixtures {
    /// 4 s of 320x240 `testsrc2` at 30 fps (120 frames) in H.264 with B-frames and a keyframe
    /// exactly every 30 frames (0, 1, 2, 3 s), in MP4: seeking lands on keyframes whose decode
    /// time is before their presentation time.
    static func gop() throws -> URL {
        try FileFixtures.file("thumb-gop.mp4") {
            try FileFixtures.ffmpeg(FileFixtures.picture(seconds: 4)
                + ["-c:v", "libx264", "-preset", "veryfast", "-bf", "2", "-g", "30", "-keyint_min", "30", "-sc_threshold", "0",
                   "-pix_fmt", "yuv420p"], to: $0)
        }
    }

    /// 1 s of 160x120 blue at 10 fps with a red 40x30 block in the top-left corner.
    static func corner() throws -> URL {
        try FileFixtures.file("thumb-corner.mp4") {
            try FileFixtures.ffmpeg(["-f", "lavfi", "-i", "color=c=blue:size=160x120:rate=10:duration=1,drawbox=x=0:y=0:w=40:h=30:color=red:t=fill",
                                     "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"], to: $0)
        }
    }

    /// ``corner()`` with the `rotate` tag `degrees` (a display matrix, stream copy).
    static func corner(rotate degrees: Int) throws -> URL {
        let source = try corner()
        return try FileFixtures.file("thumb-corner-\(degrees).mp4") {
            try FileFixtures.ffmpeg(["-i", source.path, "-c", "copy", "-metadata:s:v:0", "rotate=\(degrees)"], to: $0)
        }
    }

    /// ``gop()``'s first 2 s with the `rotate` tag `degrees`.
    static func gop(rotate degrees: Int) throws -> URL {
        let source = try gop()
        return try FileFixtures.file("thumb-gop-\(degrees).mp4") {
            try FileFixtures.ffmpeg(["-i", source.path, "-t", "2", "-c", "copy", "-metadata:s:v:0", "rotate=\(degrees)"], to: $0)
        }
    }

    /// A 200x150 JPEG photo.
    static func jpeg() throws -> URL {
        try FileFixtures.file("thumb-photo.jpg") {
            try FileFixtures.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=200x150", "-frames:v", "1", "-q:v", "2"], to: $0)
        }
    }

    /// A 200x150 PNG picture with alpha.
    static func png() throws -> URL {
        try FileFixtures.file("thumb-photo.png") {
            try FileFixtures.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=200x150", "-frames:v", "1", "-pix_fmt", "rgba"], to: $0)
        }
    }

    /// 1 s of AAC with ``jpeg()`` as its cover art (an attached picture), in M4A.
    static func song() throws -> URL {
        let cover = try jpeg()
        return try FileFixtures.file("thumb-song.m4a") {
            try FileFixtures.ffmpeg(FileFixtures.tone(seconds: 1) + ["-i", cover.path, "-map", "0", "-map", "1", "-c:a", "aac", "-c:v", "copy",
                                                                    "-disposition:v", "attached_pic"], to: $0)
        }
    }

    /// A copy of `source` under a fresh name, to be damaged by a test after its asset was made.
    static func copy(of source: URL, named name: String) throws -> URL {
        let url = FileFixtures.directory.appendingPathComponent("\(UUID().uuidString.prefix(8))-\(name)")
        try FileManager.default.copyItem(at: source, to: url)
        return url
    }

    // MARK: Oracles

    /// The frame ffmpeg decodes at `seconds` (`-ss` before `-i`: accurate seek, the first frame
    /// at or after the time), turned upright as ffmpeg does by default, as packed BGRA.
    static func ffmpegFrame(_ url: URL, at seconds: Double = 0, autorotate: Bool = true) throws -> [UInt8] {
        var arguments = ["-v", "error", "-nostdin"]
        if !autorotate { arguments.append("-noautorotate") }
        // (No -ss for zero: ffmpeg's image demuxers give nothing after a seek.)
        if seconds > 0 { arguments += ["-ss", String(format: "%.6f", seconds)] }
        arguments += ["-i", url.path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "bgra", "-"]
        return [UInt8](try FileFixtures.run("ffmpeg", arguments))
    }

    /// The presentation times of the keyframes of the first video stream, per ffprobe.
    static func keyframeTimes(_ url: URL) throws -> [Double] {
        let data = try FileFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags",
                                                    "-of", "csv=p=0", url.path])
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line -> Double? in
            let fields = line.split(separator: ",")
            guard fields.count >= 2, fields[1].hasPrefix("K") else { return nil }
            return Double(fields[0])
        }.sorted()
    }

    /// Width and height of a picture file, per ffprobe.
    static func size(_ url: URL) throws -> (width: Int, height: Int) {
        let data = try FileFixtures.run("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", url.path])
        let fields = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        return (Int(fields.first ?? "") ?? 0, Int(fields.dropFirst().first ?? "") ?? 0)
    }

    /// The brightness of packed BGRA pixels (BT.601 weights): what survives JPEG's 4:2:0
    /// chroma subsampling, which blurs the colour of a small picture's edges.
    static func luma(_ bgra: [UInt8]) -> [UInt8] {
        var result = [UInt8]()
        result.reserveCapacity(bgra.count / 4)
        for i in stride(from: 0, to: bgra.count - 3, by: 4) {
            let (b, g, r) = (Int(bgra[i]), Int(bgra[i + 1]), Int(bgra[i + 2]))
            let y: Int = (29 * b + 150 * g + 77 * r + 128) >> 8
            result.append(UInt8(y))
        }
        return result
    }

    /// The BGRA pixel at (x, y) of an image.
    static func pixel(_ image: PixelBuffer, _ x: Int, _ y: Int) -> (b: UInt8, g: UInt8, r: UInt8, a: UInt8) {
        image.withUnsafeBytes(ofPlane: 0) { bytes in
            let offset = y * image.bytesPerRow(ofPlane: 0) + x * 4
            return (bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3])
        }
    }

    /// Whether the pixel at (x, y) is clearly red (the corner block) rather than blue.
    static func isRed(_ image: PixelBuffer, _ x: Int, _ y: Int) -> Bool {
        let p = pixel(image, x, y)
        return p.r > 180 && p.b < 80
    }
}
