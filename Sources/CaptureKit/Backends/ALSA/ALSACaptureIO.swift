/// One open ALSA capture PCM, one method per libasound call the capture thread makes. The real
/// PCM is ``ALSAPCM``; tests wrap one to make the capture thread late, as a machine that did
/// not schedule it in time would — so no test knob is read on the capture path. Owned by one
/// thread at a time.
protocol ALSACaptureIO: AnyObject {
    /// The PCM's ALSA name, for errors.
    var name: String { get }
    /// Every interleaved format the PCM accepts, best first.
    func supportedFormats() -> [AudioFormat]
    /// Sets the format, period and buffer; returns what the PCM agreed to.
    func configure(_ format: AudioFormat, periodFrames: Int, periods: Int) throws(CaptureError) -> ALSAPCM.Geometry
    /// Starts capturing.
    func start() throws(CaptureError)
    /// Waits up to `milliseconds` for a period: > 0 ready, 0 timeout, < 0 an error code.
    func wait(milliseconds: Int32) -> Int32
    /// Reads up to `frames` frames: the count, or a negative error code.
    func read(into bytes: UnsafeMutableRawPointer, frames: Int) -> Int
    /// Whether the card went away under the open PCM.
    var isDisconnected: Bool { get }
    /// Frames captured but not yet read, or nil when the PCM cannot say.
    func delay() -> Int?
    /// Recovers from an overrun or a suspend and restarts capture: 0, or the error.
    func recover(from error: Int32) -> Int32
}

/// Opens a capture PCM by name: ``ALSAPCM`` itself, unless a test wraps it.
typealias ALSAOpener = @Sendable (_ name: String) throws(CaptureError) -> any ALSACaptureIO

extension ALSAPCM: ALSACaptureIO {
    /// Opens real PCMs.
    static let opener: ALSAOpener = { (name) throws(CaptureError) in try ALSAPCM(name: name) }
}
