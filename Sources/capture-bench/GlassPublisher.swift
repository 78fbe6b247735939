/// One publisher of `glass-to-glass` while it runs — CaptureKit's ``CaptureStreamOutput`` in
/// this process (``GlassCaptureKitPublisher``) or an ffmpeg child fed raw frames
/// (``GlassFFmpegPublisher``) — as the receiver needs it: what a stamp read back from a decoded
/// picture says about when that frame was captured, and the CPU it has spent.
protocol GlassPublisher: AnyObject {
    /// The row label.
    var label: String { get }
    /// "CaptureKit" or "ffmpeg" (``Measurement/tool``).
    var tool: String { get }
    /// When the frame whose picture carries `stamp` was captured (CLOCK_MONOTONIC ns), given
    /// that it was decoded at `arrival`; nil when the stamp names no frame this publisher sent.
    func captureTime(ofStamp stamp: Int64, receivedAt arrival: Int64) -> Int64?
    /// The publisher's CPU seconds so far (user + system), to difference over the measured window.
    func cpuSeconds() -> Double
    /// Stops publishing and waits for it to end; returns what it reported on the way
    /// (reconnections, drops), and throws when it failed.
    func stop() throws -> [String]
}
