import CaptureKit
import Foundation

/// Finds the device a user named on the command line: `file:PATH` for a media file played as
/// a camera or microphone, else as the library resolves names (unique ID, `/dev/video0` and
/// its udev links, `hw:1,0` and other ALSA names, device name), else the default for the
/// media type.
enum DeviceLookup {
    /// What starts a device name that is a media file (`file:clip.mp4`).
    static let filePrefix = "file:"

    /// The device `name` stands for. A `file:PATH` name makes the file's devices (paced as
    /// `pacing` says, looping unless `looping` is false, so a file never runs out before a
    /// command has what it asked for) or reuses them when an earlier lookup made them — so
    /// `--device file:a.mp4 --audio-device file:a.mp4` plays one file's picture and sound.
    static func find(_ name: String?, mediaType: MediaType, looping: Bool = true,
                     pacing: DevicePacing = .realTime) throws -> CaptureDevice {
        if let name, name.hasPrefix(filePrefix) {
            var path = String(name.dropFirst(filePrefix.count))
            if !path.isEmpty {
                let checked = try CommandPath.input(path, what: "the \(filePrefix) device's file")
                // A name that is not UTF-8 is read through /proc/self/fd/N from here on.
                if checked.path != URL(fileURLWithPath: path).path { path = checked.path }
            }
            return try fileDevice(path: path, mediaType: mediaType, looping: looping, pacing: pacing)
        }
        if mediaType == .video { try PortalAccess.requestIfNeeded() }
        guard let name else {
            guard let device = CaptureDevice.default(for: mediaType) else {
                throw CaptureError(.deviceNotFound, "no \(mediaType) device is present")
            }
            return device
        }
        return try CaptureDevice.device(resolving: name, mediaType: mediaType)
    }

    /// The microphone to record `camera` with: the one `name` stands for (``find(_:mediaType:looping:pacing:)``),
    /// or, when no name is given, a network camera's own sound — none when it sends none (a
    /// door camera is not recorded with the machine's microphone) — and the default
    /// microphone for other cameras.
    static func microphone(for camera: CaptureDevice, named name: String?, pacing: DevicePacing) throws -> CaptureDevice? {
        if camera.deviceType == .network, name == nil { return camera.companionMicrophone }
        return try find(name, mediaType: .audio, looping: false, pacing: pacing)
    }

    private static func fileDevice(path: String, mediaType: MediaType, looping: Bool,
                                   pacing: DevicePacing) throws(CaptureError) -> CaptureDevice {
        guard !path.isEmpty else {
            throw CaptureError(.invalidArgument, "'\(filePrefix)' needs a path, as in \(filePrefix)clip.mp4")
        }
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let devices: [CaptureDevice]
        if let made = CaptureDevice.fileDevices(playing: url) {
            devices = made.all
        } else {
            devices = try CaptureDevice.makeFileDevices(contentsOf: url, options: FileDeviceOptions(pacing: pacing, looping: looping)).all
        }
        guard let device = devices.first(where: { $0.hasMediaType(mediaType) }) else {
            throw CaptureError(.unsupportedFile, "the file has no \(mediaType) stream", path: url.path)
        }
        return device
    }
}
