import Synchronization

/// Delivers every buffer of microphone audio to your code (`AVCaptureAudioDataOutput`), in the
/// device's format or the one ``audioSettings`` asks for.
/// Audio is never discarded for being late: up to 64 buffers wait for a slow consumer, and
/// anything beyond is dropped and reported as `.outOfBuffers`.
///
/// ```swift
/// let output = CaptureAudioDataOutput()
/// output.audioSettings = AudioTarget(sampleFormat: .f32, sampleRate: 16_000, channelCount: 1)
/// Task { for await sample in output.sampleBuffers { print(sample.audioBuffer?.floatSamples().max() ?? 0) } }
/// try session.addOutput(output)
/// ```
public final class CaptureAudioDataOutput: SampleBufferOutput, @unchecked Sendable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    static let queueDepth = 64

    private let settings = Mutex(AudioTarget())
    /// Used only on the output's delivery thread; rebuilt when the source or target changes.
    private var resampler: AudioResampler?
    /// A target that could not be set up, reported once (not once per buffer).
    private var refusedTarget: AudioFormat?

    /// An audio data output delivering the device's own format.
    public init() {
        super.init(policy: .bounded(Self.queueDepth), threadName: "CaptureKit.audioDataOutput")
    }

    /// The sample format, rate and channel count buffers are delivered in; nil members keep the
    /// device's. Conversion runs with libswresample on the output's thread, continuously across
    /// buffers (a tone stays clean); timestamps stay on the session clock. A target that cannot
    /// be used (a rate of 0, more than 32 channels) is reported as a session runtime error.
    public var audioSettings: AudioTarget {
        get { settings.withLock { $0 } }
        set { settings.withLock { $0 = newValue } }
    }

    /// The sample formats ``audioSettings`` accepts.
    public var availableAudioSampleFormats: [AudioFormat.SampleFormat] { AudioFormat.SampleFormat.allCases }

    override var acceptedMediaTypes: Set<MediaType> { [.audio] }

    override var streamBuffering: AsyncStream<SampleBuffer>.Continuation.BufferingPolicy { .bufferingOldest(Self.queueDepth) }

    override func prepare(_ sample: SampleBuffer) throws(CaptureError) -> SampleBuffer? {
        guard let source = sample.audioBuffer?.format else { return sample }
        let target = audioSettings.resolved(for: source)
        guard target != source else {
            resampler = nil
            return sample
        }
        if resampler?.input != source || resampler?.output != target {
            resampler = nil
            if refusedTarget == target { return nil }
            do throws(CaptureError) {
                resampler = try AudioResampler(from: source, to: target)
            } catch {
                refusedTarget = target
                throw error
            }
        }
        return try resampler?.convert(sample)
    }
}
