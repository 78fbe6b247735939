import Dispatch
import Foundation
import Synchronization

/// Tells when something moves in the video a session captures, and where: a detector on the
/// luma of each frame, downscaled once to a small grey picture (``analysisWidth`` pixels wide,
/// box-filtered by libyuv) and compared with a background the output keeps.
///
/// It rejects what is not motion: sensor noise (the threshold sits above the picture's own
/// noise, which the output measures, and specks of a pixel or two are dropped), light that
/// changes slowly or all at once (the picture's overall change is taken out before pixels are
/// compared, and the background follows the picture), and the parts of the picture its
/// ``regions`` ignore. Motion is a changed share of the watched picture of at least
/// ``minimumChangedArea``; each episode is reported as it begins, on every further frame
/// with motion, and when no frame has had motion for ``quietPeriod``, with a score and boxes
/// in metadata coordinates (``MotionEvent``).
///
/// Like the metadata output, it works on the newest frame of a live camera on a thread of its
/// own: frames that arrive while it is busy replace each other and are counted in
/// ``statistics``, so detection never slows capture. A device that is not live (a file, an
/// unpaced virtual camera) is held back instead, so every frame is analysed.
///
/// ```swift
/// let motion = CaptureMotionOutput()
/// try motion.setRegions([.ignored(CGRect(x: 0, y: 0, width: 1, height: 0.2))])   // not the sky
/// try session.addOutput(motion)
/// try await session.start()
/// for await event in motion.motionEvents where event.phase == .began {
///     print("motion at \(event.presentationTimeStamp.seconds) s in \(event.boxes)")
/// }
/// ```
public final class CaptureMotionOutput: CaptureOutput, @unchecked Sendable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    /// What the output has analysed and skipped since it was made.
    public struct Statistics: Sendable, Hashable {
        /// Frames compared with the background.
        public var analyzedFrames: Int
        /// Frames not analysed because a newer one arrived while the output was busy (or the
        /// device skipped them).
        public var skippedFrames: Int
        /// Analysed frames with motion.
        public var framesWithMotion: Int
        /// Episodes of motion begun.
        public var episodes: Int
    }

    private struct Settings {
        var sensitivity = 0.5
        var minimumChangedArea = 0.005
        var regions: [MotionRegion] = []
        var quietPeriod = MediaTime(value: 1, timescale: 1)
        var analysisWidth = 160
    }

    private struct Consumers {
        weak var delegate: (any CaptureMotionOutputDelegate)?
        var queue: DispatchQueue?
        var statistics = Statistics(analyzedFrames: 0, skippedFrames: 0, framesWithMotion: 0, episodes: 0)
    }

    /// What only the analysing thread touches (and `sessionDidStopRunning` marks).
    private struct Engine {
        var detector: MotionDetector?
        /// What the detector's weights were made for.
        var weightsKey: WeightsKey?
        var episode = MotionEpisode(quietPeriod: MediaTime(value: 1, timescale: 1))
        var connection: CaptureConnection?
        /// When the session last stopped: the first frame captured after it starts afresh.
        var stoppedAt: MediaTime?
        var picture: [UInt8] = []
    }

    private struct WeightsKey: Equatable {
        var width: Int, height: Int
        var space: MetadataCoordinateSpace
        var sensitivity: Double
        var regions: [MotionRegion]
    }

    private let settings = Mutex(Settings())
    private let consumers = Mutex(Consumers())
    private let engine = Mutex(Engine())
    private let streams = Broadcast<MotionEvent>()
    private let hasDelegate = Atomic<Bool>(false)
    private var delivery: DeliveryQueue!

    /// How many events a stream keeps for a slow reader.
    static let streamDepth = 64

    /// A motion output with the default settings: sensitivity 0.5, 0.5 % of the picture,
    /// a quiet period of 1 s, the whole picture watched.
    public override init() {
        super.init()
        delivery = DeliveryQueue(name: "CaptureKit.motionOutput", policy: .newestOnly, deliver: { [weak self] item in
            self?.analyze(item.sample, from: item.connection)
        }, report: { [weak self] drop in
            self?.consumers.withLock { $0.statistics.skippedFrames += drop.frame.count }
        })
    }

    deinit {
        delivery.stop()
        streams.finish()
    }

    // MARK: Settings

    /// How readily a difference counts, 0...1 (0.5 by default): at 1, a change of 4 grey
    /// levels (or three times the picture's noise) counts; at 0, one of 28 levels (or nine
    /// times the noise).
    public var sensitivity: Double { settings.withLock { $0.sensitivity } }

    /// Sets ``sensitivity``; `.invalidArgument` outside 0...1.
    public func setSensitivity(_ value: Double) throws(CaptureError) {
        guard (0...1).contains(value) else { throw .invalidArgument("motion sensitivity \(value) must be in 0...1") }
        settings.withLock { $0.sensitivity = value }
    }

    /// The share of the watched picture that must change for a frame to have motion, 0...1
    /// (0.005, half a percent, by default).
    public var minimumChangedArea: Double { settings.withLock { $0.minimumChangedArea } }

    /// Sets ``minimumChangedArea``; `.invalidArgument` outside 0...1.
    public func setMinimumChangedArea(_ value: Double) throws(CaptureError) {
        guard (0...1).contains(value) else { throw .invalidArgument("minimum changed area \(value) must be in 0...1") }
        settings.withLock { $0.minimumChangedArea = value }
    }

    /// The parts of the picture watched differently (none by default: all of it at
    /// ``sensitivity``). Later regions win where they overlap.
    public var regions: [MotionRegion] { settings.withLock { $0.regions } }

    /// Sets ``regions``: each a non-empty rectangle inside (0, 0, 1, 1) with a sensitivity in
    /// 0...1 or none, else `.invalidArgument` (nothing changes).
    public func setRegions(_ regions: [MotionRegion]) throws(CaptureError) {
        let unit = CGRect(x: 0, y: 0, width: 1, height: 1)
        for region in regions {
            guard region.rect.width > 0, region.rect.height > 0, region.rect.minX.isFinite, region.rect.minY.isFinite,
                  unit.contains(region.rect) else {
                throw .invalidArgument("motion region \(region.rect) must be a non-empty rectangle inside (0, 0, 1, 1)")
            }
            if let value = region.sensitivity, !(0...1).contains(value) {
                throw .invalidArgument("motion region sensitivity \(value) must be in 0...1")
            }
        }
        settings.withLock { $0.regions = regions }
    }

    /// How long without motion ends an episode (1 s by default).
    public var quietPeriod: MediaTime { settings.withLock { $0.quietPeriod } }

    /// Sets ``quietPeriod``; `.invalidArgument` unless a time of at least zero.
    public func setQuietPeriod(_ period: MediaTime) throws(CaptureError) {
        guard period.isNumeric, period >= .zero else { throw .invalidArgument("quiet period \(period) must be a time of at least zero") }
        settings.withLock { $0.quietPeriod = period }
    }

    /// The width of the grey picture the detector works on, in pixels (160 by default; the
    /// height keeps the frame's aspect). Wider finds smaller things and costs more.
    public var analysisWidth: Int { settings.withLock { $0.analysisWidth } }

    /// Sets ``analysisWidth``; `.invalidArgument` outside 32...1280.
    public func setAnalysisWidth(_ width: Int) throws(CaptureError) {
        guard (32...1280).contains(width) else { throw .invalidArgument("motion analysis width \(width) must be in 32...1280") }
        settings.withLock { $0.analysisWidth = width }
    }

    // MARK: Who hears about it

    /// Sets who receives motion events and on which queue. Pass nil to stop. The delegate is
    /// held weakly; calls are serialized on `queue`.
    public func setMotionDelegate(_ delegate: (any CaptureMotionOutputDelegate)?, queue: DispatchQueue?) {
        consumers.withLock {
            $0.delegate = delegate
            $0.queue = delegate == nil ? nil : (queue ?? DispatchQueue(label: "CaptureKit.motionDelegate"))
            hasDelegate.store(delegate != nil, ordering: .relaxed)
        }
    }

    /// The delegate, if one is set.
    public var motionDelegate: (any CaptureMotionOutputDelegate)? { consumers.withLock { $0.delegate } }

    /// A new stream of the output's events. Every access makes an independent stream; a slow
    /// reader misses the oldest events, never slows capture.
    public var motionEvents: AsyncStream<MotionEvent> {
        streams.makeStream(bufferingPolicy: .bufferingNewest(Self.streamDepth))
    }

    /// What the output has analysed and skipped.
    public var statistics: Statistics { consumers.withLock { $0.statistics } }

    /// Whether an episode of motion is under way.
    public var isMotionDetected: Bool { engine.withLock { $0.episode.isActive } }

    private var isListenedTo: Bool { hasDelegate.load(ordering: .relaxed) || streams.hasStreams }

    // MARK: Session hooks

    override var acceptedMediaTypes: Set<MediaType> { [.video] }

    override func receive(_ sample: SampleBuffer, from connection: CaptureConnection) {
        // Nobody listening: no frame is queued, converted or analysed.
        guard isListenedTo else { return }
        if let device = connection.device, !device.backend.isLive {
            analyze(sample, from: connection)   // held back: every frame of a file is analysed
        } else {
            delivery.enqueue(DeliveryQueue.Item(sample: sample, connection: connection))
        }
    }

    override func deviceDidDrop(count: Int, from connection: CaptureConnection) {
        guard isListenedTo else { return }
        delivery.enqueueDrop(DeliveryQueue.Drop(
            frame: DroppedFrame(presentationTimeStamp: .invalid, reason: .discontinuity, count: count), connection: connection))
    }

    override func sessionDidStopRunning() {
        let now = MonotonicClock.now()
        let ended = engine.withLock { engine -> (CaptureConnection, MotionEvent)? in
            engine.stoppedAt = now
            guard engine.episode.end(), let connection = engine.connection else { return nil }
            return (connection, MotionEvent(phase: .ended, presentationTimeStamp: now, score: 0, boxes: []))
        }
        if let (connection, event) = ended { publish(event, from: connection) }
    }

    // MARK: Analysis (the output's thread, or the device's when held back)

    private func analyze(_ sample: SampleBuffer, from connection: CaptureConnection) {
        guard let frame = sample.pixelBuffer else { return }
        let wanted = settings.withLock { $0 }
        let width = wanted.analysisWidth
        let height = max(2, Int((Double(width) * Double(frame.height) / Double(max(1, frame.width)) / 2).rounded()) * 2)
        let space = MetadataCoordinateSpace(width: width, height: height, rotationAngle: connection.videoRotationAngle,
                                            isMirrored: connection.isVideoMirrored)
        let time = sample.presentationTimeStamp
        let analysis: MotionDetector.Analysis, phase: MotionEvent.Phase?
        do throws(CaptureError) {
            (analysis, phase) = try engine.withLock { (engine) throws(CaptureError) -> (MotionDetector.Analysis, MotionEvent.Phase?) in
                engine.connection = connection
                engine.episode.quietPeriod = wanted.quietPeriod
                if let stop = engine.stoppedAt, time > stop {
                    engine.detector?.reset()   // the picture may have changed while stopped
                    engine.stoppedAt = nil
                }
                if engine.detector?.width != width || engine.detector?.height != height { engine.detector = MotionDetector(width: width, height: height) }
                let key = WeightsKey(width: width, height: height, space: space, sensitivity: wanted.sensitivity, regions: wanted.regions)
                if engine.weightsKey != key {
                    engine.detector!.setWeights(Self.weights(key))
                    engine.weightsKey = key
                }
                engine.detector!.sensitivity = .init(value: wanted.sensitivity)
                engine.detector!.minimumChangedArea = wanted.minimumChangedArea
                try MotionPicture.make(from: sample, width: width, height: height, into: &engine.picture)
                let analysis = engine.detector!.analyze(engine.picture)
                return (analysis, engine.episode.frame(at: time, motion: analysis.isMotion))
            }
        } catch {
            session?.reportRuntimeError(error)
            return
        }
        consumers.withLock {
            $0.statistics.analyzedFrames += 1
            if analysis.isMotion { $0.statistics.framesWithMotion += 1 }
            if phase == .began { $0.statistics.episodes += 1 }
        }
        guard let phase else { return }
        let boxes = analysis.blobs.map { Self.metadataRect($0, in: space) }
        publish(MotionEvent(phase: phase, presentationTimeStamp: time, score: phase == .ended ? 0 : analysis.score,
                            boxes: phase == .ended ? [] : boxes), from: connection)
    }

    private func publish(_ event: MotionEvent, from connection: CaptureConnection) {
        streams.yield(event)
        let (delegate, queue) = consumers.withLock { ($0.delegate, $0.queue) }
        if let delegate, let queue {
            // Synchronous, as the data outputs: while the delegate works, newer frames replace
            // each other in the delivery queue instead of piling up.
            queue.sync { delegate.motionOutput(self, didOutput: event, from: connection) }
        }
    }

    /// One factor per analysis pixel: what each region makes of the pixels it covers.
    private static func weights(_ key: WeightsKey) -> [Float] {
        var weights = [Float](repeating: 1, count: key.width * key.height)
        let base = MotionDetector.Sensitivity(value: key.sensitivity).floor
        for region in key.regions {
            guard let rect = key.space.deviceRect(region.rect) else { continue }
            // A region's floor, as a factor on the difference against the picture's floor.
            let weight = region.sensitivity.map { base / MotionDetector.Sensitivity(value: $0).floor } ?? 0
            for y in rect.y..<(rect.y + rect.height) {
                for x in rect.x..<(rect.x + rect.width) { weights[y * key.width + x] = weight }
            }
        }
        return weights
    }

    /// An analysis-pixel rectangle in metadata coordinates.
    private static func metadataRect(_ rect: PixelRect, in space: MetadataCoordinateSpace) -> CGRect {
        let a = space.metadataPoint(x: Double(rect.x), y: Double(rect.y))
        let b = space.metadataPoint(x: Double(rect.x + rect.width), y: Double(rect.y + rect.height))
        return CGRect(x: min(a.x, b.x), y: min(a.y, b.y), width: abs(a.x - b.x), height: abs(a.y - b.y))
    }
}
