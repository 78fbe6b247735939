/// How a file-backed device made with ``CaptureDevice/makeFileDevices(contentsOf:options:)``
/// plays its file.
///
/// ```swift
/// var options = FileDeviceOptions(pacing: .unpaced)   // as fast as it decodes, for benchmarks
/// options.looping = true                              // never ends
/// let devices = try CaptureDevice.makeFileDevices(contentsOf: url, options: options)
/// ```
public struct FileDeviceOptions: Sendable, Hashable {
    /// When the device produces samples.
    public typealias Pacing = DevicePacing

    /// Real time (the default) or unpaced.
    public var pacing: Pacing
    /// Whether to start again at the end of the file instead of ending. Timestamps keep
    /// increasing (each pass starts where the previous one ended) and sequence numbers keep
    /// counting. Without looping the session posts `.deviceReachedEnd(deviceID:)` at the end.
    public var looping: Bool
    /// The devices' name; the file name when nil.
    public var name: String?
    /// The start of the devices' unique IDs (`<uniqueID>#video`, `<uniqueID>#audio`); when nil,
    /// `file:` followed by the file's absolute path.
    public var uniqueID: String?

    /// Options; by default real time, not looping.
    public init(pacing: Pacing = .realTime, looping: Bool = false) {
        self.pacing = pacing
        self.looping = looping
    }
}
