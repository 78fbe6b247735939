import Synchronization

/// Delivers every video frame to your code (`AVCaptureVideoDataOutput`), converted to the
/// pixel format and size you ask for.
///
/// ```swift
/// final class Frames: SampleBufferDelegate {
///     func captureOutput(_ output: CaptureOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
///         print(sampleBuffer.presentationTimeStamp.seconds)
///     }
/// }
/// let output = CaptureVideoDataOutput()
/// output.videoSettings = VideoTarget(pixelFormat: .bgra)
/// output.setSampleBufferDelegate(Frames(), queue: DispatchQueue(label: "frames"))
/// try session.addOutput(output)
/// ```
public final class CaptureVideoDataOutput: SampleBufferOutput, @unchecked Sendable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    private let settings = Mutex(VideoTarget())
    private let discardsLate = Atomic<Bool>(true)

    /// How many late frames wait when ``alwaysDiscardsLateVideoFrames`` is false.
    static let lateFrameQueueDepth = 8

    /// A video data output delivering the device's own format.
    public init() {
        super.init(policy: .newestOnly, threadName: "CaptureKit.videoDataOutput")
    }

    /// The pixel format and size frames are delivered in; nil members keep the device's.
    /// Conversion happens on the output's thread, once per frame for all outputs that want the
    /// same target.
    public var videoSettings: VideoTarget {
        get { settings.withLock { $0 } }
        set { settings.withLock { $0 = newValue } }
    }

    /// The pixel formats ``videoSettings`` accepts.
    public var availableVideoPixelFormats: [PixelFormat] { PixelFormat.allCases }

    /// When true (the default), a consumer still busy with one frame gets the newest frame
    /// next; the ones in between are dropped and reported as `.frameWasLate`. When false, up to
    /// eight frames wait, and further ones are dropped as `.outOfBuffers`.
    public var alwaysDiscardsLateVideoFrames: Bool {
        get { discardsLate.load(ordering: .relaxed) }
        set {
            discardsLate.store(newValue, ordering: .relaxed)
            delivery.setPolicy(newValue ? .newestOnly : .bounded(Self.lateFrameQueueDepth))
        }
    }

    override var acceptedMediaTypes: Set<MediaType> { [.video] }

    override var streamBuffering: AsyncStream<SampleBuffer>.Continuation.BufferingPolicy {
        alwaysDiscardsLateVideoFrames ? .bufferingNewest(1) : .bufferingNewest(Self.lateFrameQueueDepth)
    }

    override func prepare(_ sample: SampleBuffer) throws(CaptureError) -> SampleBuffer? {
        try sample.converted(to: videoSettings)
    }
}

