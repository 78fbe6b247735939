/// The camera and microphone made from one media file by
/// ``CaptureDevice/makeFileDevices(contentsOf:options:)``; either is nil when the file has no
/// stream of that kind.
public struct FileDevices: Sendable {
    /// Plays the file's main video stream, if it has one.
    public let video: CaptureDevice?
    /// Plays the file's main audio stream, if it has one.
    public let audio: CaptureDevice?

    /// Both devices, video first.
    public var all: [CaptureDevice] { [video, audio].compactMap { $0 } }

    /// Removes both devices from discovery (``CaptureDevice/removeFileDevice(_:)``).
    public func remove() {
        for device in all { CaptureDevice.removeFileDevice(device) }
    }
}
