import CaptureKit

/// One measured run of a `stream-1080p` job: what it cost, and what it encoded and sent.
struct StreamRun: Sendable {
    /// Wall, CPU and peak RSS as for `record-1080p`; its ``RecordRun/counts`` are the packets
    /// of the recording (zero when the job only streams), filled in after the run.
    var resources: RecordRun
    /// Video frames the job encoded: CaptureKit's `CaptureStreamOutput.encodedVideoFrameCount`,
    /// ffmpeg's last `frame=` of `-progress`.
    var framesEncoded: Int
    /// CaptureKit's `CaptureStreamOutput.statistics` once every destination ended; empty for ffmpeg.
    var destinations: [StreamStatistics] = []
    /// Reconnections and drops CaptureKit's stream output reported (``StreamEvent`` as text).
    var incidents: [String] = []
}
