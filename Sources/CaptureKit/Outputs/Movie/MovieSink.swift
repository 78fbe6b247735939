internal import CFFmpeg
import Foundation

/// Where a ``MovieRecording``'s tracks and packets go: one movie file (``MovieMuxer``), or the
/// pre-roll ring that cuts clips out of an endless recording (``PreRollSink``). The recording's
/// encoders, timing and pace are the same for both.
protocol MovieSink: AnyObject {
    /// The file written, or "" for a sink that is no single file.
    var path: String { get }
    /// Whether encoders must put their headers in extradata.
    var needsGlobalHeader: Bool { get }
    /// Bytes of packets handed over so far.
    var payloadBytes: Int64 { get }
    /// Packets handed over so far, all tracks.
    var packetCount: Int { get }
    /// Video packets handed over so far.
    var videoPacketCount: Int { get }
    /// Every packet's timing as written, per stream (for defragmenting the file).
    var timings: [[MovieMuxer.PacketTiming]] { get }
    /// Each stream's time base.
    var timeBases: [AVRational] { get }
    /// Adds the video track from an open encoder.
    func addVideo(_ encoder: VideoEncoder, rotation: Double, mirrored: Bool) throws(CaptureError)
    /// Adds a video track for packets stored as the camera coded them (pass-through).
    func addVideo(copying parameters: CodecParameters, rotation: Double, mirrored: Bool) throws(CaptureError)
    /// Adds the audio track from an open encoder.
    func addAudio(_ encoder: AudioEncoder) throws(CaptureError)
    /// Starts writing, once the tracks are added.
    func start(metadata: MovieMetadata, startDate: Date, fragmentInterval: MediaTime?) throws(CaptureError)
    /// Takes one packet (lent for the call).
    func write(_ encoded: EncodedPacket) throws(CaptureError)
    /// Ends cleanly.
    func finish() throws(CaptureError)
    /// Ends as things are.
    func closeFile()
    /// Ends after a failed write, dropping what it left half written.
    func closeFileDroppingPartialWrite()
    /// Whether the frame at `fileTime` should be a keyframe (a sink that cuts files there).
    func wantsKeyframe(at fileTime: MediaTime) -> Bool
}

extension MovieMuxer: MovieSink {}

extension MovieSink {
    func wantsKeyframe(at fileTime: MediaTime) -> Bool { false }

    /// Streams and pre-roll clips re-encode: they cut and restart where the camera's own
    /// keyframes need not fall.
    func addVideo(copying parameters: CodecParameters, rotation: Double, mirrored: Bool) throws(CaptureError) {
        throw CaptureError(.notSupported, "this output does not store a camera's \(parameters.codecName) as it came")
    }
}
