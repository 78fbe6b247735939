/// Delivers every buffer of microphone audio to your code (`AVCaptureAudioDataOutput`).
/// Audio is never discarded for being late: up to 64 buffers wait for a slow consumer, and
/// anything beyond is dropped and reported as `.outOfBuffers`.
///
/// ```swift
/// let output = CaptureAudioDataOutput()
/// Task { for await buffer in output.sampleBuffers { meter(buffer.audioBuffer!) } }
/// try session.addOutput(output)
/// ```
public final class CaptureAudioDataOutput: SampleBufferOutput, @unchecked Sendable {
    static let queueDepth = 64

    /// An audio data output delivering the device's own format.
    public init() {
        super.init(policy: .bounded(Self.queueDepth), threadName: "CaptureKit.audioDataOutput")
    }

    override var acceptedMediaTypes: Set<MediaType> { [.audio] }

    override var streamBuffering: AsyncStream<SampleBuffer>.Continuation.BufferingPolicy { .bufferingOldest(Self.queueDepth) }
}
