import Foundation
import Glibc

extension CaptureDevice {
    /// The device a person named, in any of the ways Linux users name devices — on a command
    /// line, in a settings file:
    ///
    /// - a unique ID (`v4l2:by-id:usb-046d_0825_ABC123-video-index0`, `alsa:hw:CARD=Loopback,DEV=0`,
    ///   `pulse:alsa_input.usb-…`, `virtual-camera`); an `alsa:` ID of a PCM that discovery does
    ///   not list (`alsa:plughw:1,0`, `alsa:default`) opens that PCM
    ///   (``alsaMicrophone(pcm:localizedName:)``);
    /// - a V4L2 node's path: `/dev/video0`, or a udev link such as `/dev/v4l/by-id/…` or
    ///   `/dev/v4l/by-path/…` (links are followed, so any path to the node will do);
    /// - an ALSA card device: `hw:1,0`, `hw:Loopback,0`, `hw:CARD=Loopback,DEV=0` (card numbers
    ///   become card IDs, which survive re-plugs, so `hw:1,0` is the device discovery lists as
    ///   `alsa:hw:CARD=…,DEV=0`), or `plughw:…` with ALSA's conversions; a card that discovery
    ///   does not list (a sound server holds the cards) is opened by that name;
    /// - a network camera's URL (`rtsp://…`, `rtmp://…`, `srt://…`, `http://…`, `udp://…`),
    ///   connected to with the default options (``networkCamera(url:options:)``), or its
    ///   ``companionMicrophone`` when `mediaType` is `.audio`;
    /// - a device's `localizedName`, ignoring case.
    ///
    /// `mediaType` narrows the search to cameras or microphones. Throws `.deviceNotFound` saying
    /// what is present when nothing matches (for a path: that it does not exist, or that it is
    /// not a video-capture node), and the ALSA errors of ``alsaMicrophone(pcm:localizedName:)``
    /// for a PCM that cannot be opened.
    ///
    /// ```swift
    /// let camera = try CaptureDevice.device(resolving: "/dev/video0")
    /// let microphone = try CaptureDevice.device(resolving: "hw:1,0", mediaType: .audio)
    /// ```
    public static func device(resolving name: String, mediaType: MediaType? = nil) throws(CaptureError) -> CaptureDevice {
        try device(resolving: name, mediaType: mediaType, among: allDevices)
    }

    /// ``device(resolving:mediaType:)`` among `devices`, with ALSA's cards described under
    /// `asoundRoot` (`/proc/asound`): tests pass a made-up /dev's devices and card list.
    static func device(resolving name: String, mediaType: MediaType?, among devices: [CaptureDevice],
                       asoundRoot: String = "/proc/asound") throws(CaptureError) -> CaptureDevice {
        let candidates = devices.filter { device in mediaType.map(device.hasMediaType) ?? true }
        if let device = candidates.first(where: { $0.uniqueID == name }) { return device }
        let mayBeAudio = mediaType != .video
        if isNetworkCameraURL(name) {
            let camera = try networkCamera(url: name)
            guard mediaType == .audio else { return camera }
            guard let microphone = camera.companionMicrophone else {
                throw CaptureError(.deviceNotFound, "the network camera \(camera.localizedName) sends no sound", deviceID: camera.uniqueID)
            }
            return microphone
        }
        if name.hasPrefix("/") {
            return try node(at: name, among: candidates.filter { $0.hasMediaType(.video) })
        }
        if mayBeAudio, name.hasPrefix(ALSABackend.uniqueIDPrefix) {
            return try alsaMicrophone(pcm: String(name.dropFirst(ALSABackend.uniqueIDPrefix.count)))
        }
        if mayBeAudio, let pcm = ALSACardName(name, asoundRoot: asoundRoot) {
            if let listed = candidates.first(where: { $0.alsaPCMName == pcm.canonical }) { return listed }
            return try alsaMicrophone(pcm: pcm.canonical)
        }
        if let device = candidates.first(where: { $0.localizedName.lowercased() == name.lowercased() }) { return device }
        let what = mediaType.map { "\($0) device" } ?? "device"
        let present = candidates.map { "'\($0.uniqueID)'" }.joined(separator: ", ")
        throw CaptureError(.deviceNotFound, "no \(what) '\(name)' (present: \(present.isEmpty ? "none" : present))")
    }

    /// The camera whose V4L2 node `path` leads to, through any links.
    private static func node(at path: String, among cameras: [CaptureDevice]) throws(CaptureError) -> CaptureDevice {
        guard let target = realPath(path) else {
            throw CaptureError(.deviceNotFound, "no camera at \(path)", errno: errno, path: path)
        }
        let nodes = cameras.compactMap { camera in (camera.backend as? V4L2DeviceBackend).map { (camera, $0.devicePath) } }
        if let (camera, _) = nodes.first(where: { realPath($0.1) == target }) { return camera }
        let known = nodes.map { "\($0.1) (\($0.0.localizedName))" }.joined(separator: ", ")
        throw CaptureError(.deviceNotFound,
                           "\(path) is not a video-capture node CaptureKit lists (capture nodes: \(known.isEmpty ? "none" : known))",
                           path: path)
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// An ALSA card device as people type it — `hw:1,0`, `hw:Loopback`, `hw:CARD=Loopback,DEV=0`,
/// `plughw:1,0` — and its canonical name, `hw:CARD=<card ID>,DEV=<device>` (with the same
/// plugin prefix), which names the device as discovery does whatever number the card got.
struct ALSACardName {
    /// The name with the card's ID and the device number spelled out.
    let canonical: String

    /// Nil when `name` is not a `hw:` or `plughw:` card name, or names a card number that
    /// `asoundRoot` (`/proc/asound`, where `cardN/id` holds card N's ID) does not have.
    init?(_ name: String, asoundRoot: String = "/proc/asound") {
        guard let colon = name.firstIndex(of: ":") else { return nil }
        let plugin = String(name[..<colon])
        guard plugin == "hw" || plugin == "plughw" else { return nil }
        var card: String?
        var device = "0"
        let arguments = name[name.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(arguments.count) else { return nil }
        for (index, argument) in arguments.enumerated() {
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            let key = parts.count == 2 ? parts[0] : (index == 0 ? "CARD" : "DEV")
            let value = parts.last ?? ""
            guard !value.isEmpty else { return nil }
            switch key {
            case "CARD": card = value
            case "DEV": device = value
            default: return nil
            }
        }
        guard var card, Int(device) != nil else { return nil }
        if let number = Int(card) {
            guard let id = try? String(contentsOfFile: "\(asoundRoot)/card\(number)/id", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines), !id.isEmpty else { return nil }
            card = id
        }
        canonical = "\(plugin):CARD=\(card),DEV=\(device)"
    }
}
