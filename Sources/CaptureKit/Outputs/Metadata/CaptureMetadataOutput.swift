import Dispatch
import Foundation
import Synchronization

/// Finds barcodes, QR codes and other machine-readable codes in the video a session captures
/// (`AVCaptureMetadataOutput`), with ZBar and zxing-cpp, on a thread of its own.
///
/// Like AVFoundation's, the output looks for nothing until told which
/// ``metadataObjectTypes`` to find. On a live camera it works on the newest frame: while it is
/// busy with one frame, newer ones replace each other and the skipped ones are counted in
/// ``statistics``, so scanning never slows capture or the session's other outputs. A device
/// that is not live (a file device read unpaced, an unpaced virtual camera) is held back instead, so every
/// frame is scanned.
///
/// ```swift
/// let scanner = CaptureMetadataOutput()
/// try session.addOutput(scanner)
/// try scanner.setMetadataObjectTypes([.qr, .ean13])
/// try scanner.setRectOfInterest(CGRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5))   // faster
/// try await session.start()
/// for await objects in scanner.metadataObjects {
///     for case let code as MachineReadableCodeObject in objects { print(code.stringValue ?? "") }
/// }
/// ```
public final class CaptureMetadataOutput: CaptureOutput, @unchecked Sendable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    /// What the output has scanned and skipped since it was made.
    public struct Statistics: Sendable, Hashable {
        /// Frames searched for codes.
        public var scannedFrames: Int
        /// Frames not searched because a newer one arrived while the output was busy (or the
        /// device skipped them).
        public var skippedFrames: Int
        /// Frames in which at least one code was found (one delegate call / stream element each).
        public var framesWithObjects: Int
    }

    private struct Settings {
        var types: Set<MetadataObject.ObjectType> = []
        var orderedTypes: [MetadataObject.ObjectType] = []
        var rectOfInterest = CGRect(x: 0, y: 0, width: 1, height: 1)
    }

    private struct Consumers {
        weak var delegate: (any CaptureMetadataOutputObjectsDelegate)?
        var queue: DispatchQueue?
        var statistics = Statistics(scannedFrames: 0, skippedFrames: 0, framesWithObjects: 0)
    }

    /// What only the output's thread touches (and `sessionDidStopRunning` marks).
    private struct Engine {
        var scanner: ZBarScanner?
        var tracker = CodeTracker()
        /// When the session last stopped: the first frame captured after it starts the
        /// tracking afresh. (Frames captured before it may still be waiting to be scanned, and
        /// keep their codes' identities.)
        var stoppedAt: MediaTime?
    }

    private let settings = Mutex(Settings())
    private let consumers = Mutex(Consumers())
    private let engine = Mutex(Engine())
    private let streams = Broadcast<[MetadataObject]>()
    /// Read per frame on the device thread: whether a delegate is set and any type is asked for.
    private let hasDelegate = Atomic<Bool>(false)
    private let wantsTypes = Atomic<Bool>(false)
    private let hasObservers = Atomic<Bool>(false)
    private let observers = Mutex<[Int: @Sendable ([MetadataObject]) -> Void]>([:])
    private let nextObserver = Atomic<Int>(0)
    private var delivery: DeliveryQueue!

    /// How many object batches a stream keeps for a slow reader.
    static let streamDepth = 8

    /// A metadata output looking for nothing yet (set ``metadataObjectTypes``).
    public override init() {
        super.init()
        delivery = DeliveryQueue(name: "CaptureKit.metadataOutput", policy: .newestOnly, deliver: { [weak self] item in
            self?.scan(item)
        }, report: { [weak self] drop in
            self?.consumers.withLock { $0.statistics.skippedFrames += drop.frame.count }
        })
    }

    deinit {
        delivery.stop()
        streams.finish()
    }

    // MARK: What to look for

    /// The types this machine can find: QR, EAN-13, EAN-8, UPC-A, UPC-E, Code 39, Code 93,
    /// Code 128, ITF and Codabar (read by ZBar), Data Matrix and PDF417 (read by zxing-cpp).
    /// Unlike AVFoundation's, the list does not depend on the output being connected.
    public var availableMetadataObjectTypes: [MetadataObject.ObjectType] { Self.supportedTypes }

    static let supportedTypes = ZBarScanner.supportedTypes + ZXingScanner.supportedTypes

    /// The types the output looks for, in the order they were set; empty (the default) means
    /// the output scans nothing.
    public var metadataObjectTypes: [MetadataObject.ObjectType] { settings.withLock { $0.orderedTypes } }

    /// Sets ``metadataObjectTypes``. Types not in ``availableMetadataObjectTypes`` are refused
    /// with `.notSupported` (nothing changes), as AVFoundation refuses them.
    public func setMetadataObjectTypes(_ types: [MetadataObject.ObjectType]) throws(CaptureError) {
        let unsupported = types.filter { !Self.supportedTypes.contains($0) }
        guard unsupported.isEmpty else {
            throw CaptureError(.notSupported, "metadata object types \(unsupported.map(\.rawValue).joined(separator: ", ")) cannot be "
                               + "decoded here; availableMetadataObjectTypes lists those that can")
        }
        var seen = Set<MetadataObject.ObjectType>()
        let ordered = types.filter { seen.insert($0).inserted }
        settings.withLock {
            $0.types = seen
            $0.orderedTypes = ordered
            wantsTypes.store(!seen.isEmpty, ordering: .relaxed)
        }
    }

    /// The part of the picture searched, in metadata coordinates (see ``MetadataObject``);
    /// (0, 0, 1, 1), the whole picture, by default. Searching less is faster, and codes whose
    /// centre lies outside are never reported.
    public var rectOfInterest: CGRect { settings.withLock { $0.rectOfInterest } }

    /// Sets ``rectOfInterest``: a non-empty rectangle inside (0, 0, 1, 1), else `.invalidArgument`.
    public func setRectOfInterest(_ rect: CGRect) throws(CaptureError) {
        let unit = CGRect(x: 0, y: 0, width: 1, height: 1)
        guard rect.width > 0, rect.height > 0, rect.minX.isFinite, rect.minY.isFinite, unit.contains(rect) else {
            throw .invalidArgument("rect of interest \(rect) must be a non-empty rectangle inside (0, 0, 1, 1)")
        }
        settings.withLock { $0.rectOfInterest = rect }
    }

    // MARK: Who hears about it

    /// Sets who receives found objects and on which queue (`setMetadataObjectsDelegate(_:queue:)`).
    /// Pass nil to stop. The delegate is held weakly; calls are serialized on `queue`.
    public func setMetadataObjectsDelegate(_ delegate: (any CaptureMetadataOutputObjectsDelegate)?, queue: DispatchQueue?) {
        consumers.withLock {
            $0.delegate = delegate
            $0.queue = delegate == nil ? nil : (queue ?? DispatchQueue(label: "CaptureKit.metadataObjectsDelegate"))
            hasDelegate.store(delegate != nil, ordering: .relaxed)
        }
    }

    /// The delegate, if one is set.
    public var metadataObjectsDelegate: (any CaptureMetadataOutputObjectsDelegate)? { consumers.withLock { $0.delegate } }

    /// The queue the delegate is called on.
    public var metadataObjectsCallbackQueue: DispatchQueue? { consumers.withLock { $0.queue } }

    /// A new stream of what the output finds: one element per frame with at least one object.
    /// Every access makes an independent stream; a slow reader misses old elements, never
    /// slows capture.
    public var metadataObjects: AsyncStream<[MetadataObject]> {
        streams.makeStream(bufferingPolicy: .bufferingNewest(Self.streamDepth))
    }

    /// What the output has scanned and skipped.
    public var statistics: Statistics { consumers.withLock { $0.statistics } }

    /// Whether anyone listens and any type is asked for; read per frame on the device thread.
    private var isActive: Bool {
        wantsTypes.load(ordering: .relaxed) && (hasDelegate.load(ordering: .relaxed) || streams.hasStreams || hasObservers.load(ordering: .relaxed))
    }

    // MARK: Observers (other parts of CaptureKit)

    /// Calls `body` on the scanning thread with every frame's objects, before the delegate and
    /// the streams hear of them; returns the number to stop with (``stopObserving(_:)``).
    package func observeObjects(_ body: @escaping @Sendable ([MetadataObject]) -> Void) -> Int {
        let id = nextObserver.add(1, ordering: .relaxed).newValue
        observers.withLock {
            $0[id] = body
            hasObservers.store(true, ordering: .relaxed)
        }
        return id
    }

    /// Stops the observer `id` of ``observeObjects(_:)``.
    package func stopObserving(_ id: Int) {
        observers.withLock {
            $0[id] = nil
            hasObservers.store(!$0.isEmpty, ordering: .relaxed)
        }
    }

    // MARK: Session hooks

    override var acceptedMediaTypes: Set<MediaType> { [.video] }

    override func receive(_ sample: SampleBuffer, from connection: CaptureConnection) {
        // Nothing asked for or nobody listening: no frame is queued, converted or scanned.
        guard isActive else { return }
        if let device = connection.device, !device.backend.isLive {
            scan(DeliveryQueue.Item(sample: sample, connection: connection))   // held back: every frame of a file is scanned
        } else {
            delivery.enqueue(DeliveryQueue.Item(sample: sample, connection: connection))
        }
    }

    override func deviceDidDrop(count: Int, from connection: CaptureConnection) {
        guard isActive else { return }
        delivery.enqueueDrop(DeliveryQueue.Drop(
            frame: DroppedFrame(presentationTimeStamp: .invalid, reason: .discontinuity, count: count), connection: connection))
    }

    override func sessionDidStopRunning() {
        let now = MonotonicClock.now()
        engine.withLock { $0.stoppedAt = now }
    }

    // MARK: Scanning (the output's thread)

    private func scan(_ item: DeliveryQueue.Item) {
        let wanted = settings.withLock { ($0.types, $0.rectOfInterest) }
        guard !wanted.0.isEmpty, item.sample.pixelBuffer != nil else { return }
        let objects: [MetadataObject]
        do {
            objects = try find(wanted.0, in: wanted.1, sample: item.sample, connection: item.connection)
        } catch {
            session?.reportRuntimeError(error)
            return
        }
        let (delegate, queue) = consumers.withLock { consumers in
            consumers.statistics.scannedFrames += 1
            if !objects.isEmpty { consumers.statistics.framesWithObjects += 1 }
            return (consumers.delegate, consumers.queue)
        }
        guard !objects.isEmpty else { return }
        for observer in observers.withLock({ Array($0.values) }) { observer(objects) }
        streams.yield(objects)
        if let delegate, let queue {
            // Synchronous, as the data outputs: while the delegate works, newer frames replace
            // each other in the delivery queue instead of piling up.
            queue.sync { delegate.metadataOutput(self, didOutput: objects, from: item.connection) }
        }
    }

    private func find(_ types: Set<MetadataObject.ObjectType>, in rect: CGRect, sample: SampleBuffer,
                      connection: CaptureConnection) throws(CaptureError) -> [MetadataObject] {
        let luma = try LumaFrame.of(sample)
        let space = MetadataCoordinateSpace(width: luma.width, height: luma.height,
                                            rotationAngle: connection.videoRotationAngle, isMirrored: connection.isVideoMirrored)
        guard let crop = space.deviceRect(rect) else { return [] }
        let zbarTypes = types.intersection(ZBarScanner.supportedTypes)
        return try engine.withLock { (engine) throws(CaptureError) -> [MetadataObject] in
            let found = try luma.withUnsafeBytes(ofPlane: 0) { (plane) throws(CaptureError) -> [DetectedCode] in
                let stride = luma.bytesPerRow(ofPlane: 0)
                var codes: [DetectedCode] = []
                if !zbarTypes.isEmpty {
                    if engine.scanner == nil { engine.scanner = try ZBarScanner() }
                    engine.scanner!.setTypes(zbarTypes)
                    codes += try engine.scanner!.scan(luma: plane.baseAddress!, bytesPerRow: stride, width: luma.width, height: luma.height, crop: crop)
                }
                codes += try ZXingScanner.scan(types, luma: plane.baseAddress!, bytesPerRow: stride, width: luma.width, height: luma.height, crop: crop)
                return codes
            }
            let inside = found.filter { rect.contains(space.metadataPoint(x: $0.centerX, y: $0.centerY)) }
            if let stop = engine.stoppedAt, sample.presentationTimeStamp > stop {
                engine.tracker.reset()   // nothing stays in view across a restart
                engine.stoppedAt = nil
            }
            let ids = engine.tracker.identify(inside.map { ($0.type, $0.data, $0.centerX, $0.centerY) },
                                              time: sample.presentationTimeStamp, frameDuration: sample.duration)
            return zip(inside, ids).map { code, id in
                Self.object(code, id: id, space: space, time: sample.presentationTimeStamp, duration: sample.duration)
            }
        }
    }

    private static func object(_ symbol: DetectedCode, id: Int, space: MetadataCoordinateSpace,
                               time: MediaTime, duration: MediaTime) -> MachineReadableCodeObject {
        let corners = symbol.corners.map { space.metadataPoint(x: $0.x, y: $0.y) }
        let box = [(symbol.minX, symbol.minY), (symbol.maxX, symbol.maxY)].map { space.metadataPoint(x: $0.0, y: $0.1) }
        let bounds = CGRect(x: min(box[0].x, box[1].x), y: min(box[0].y, box[1].y),
                            width: abs(box[0].x - box[1].x), height: abs(box[0].y - box[1].y))
        return MachineReadableCodeObject(type: symbol.type, bounds: bounds, corners: corners, stringValue: text(of: symbol.data),
                                         data: symbol.data, objectID: id, time: time, duration: duration)
    }

    /// UTF-8 when the bytes are valid UTF-8, else ISO 8859-1 (one character per byte).
    static func text(of data: [UInt8]) -> String {
        if let utf8 = String(validating: data, as: UTF8.self) { return utf8 }
        return String(String.UnicodeScalarView(data.map { Unicode.Scalar($0) }))
    }
}
