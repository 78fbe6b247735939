import Foundation
import Synchronization

/// The photo machinery behind ``CapturePhotoOutput`` and ``CaptureStillImageOutput``: accepts
/// requests, gives each the newest frame already delivered (zero shutter lag, when it is fresh
/// enough) or the next frame the session delivers, encodes off the device thread and reports
/// every request exactly once per stage, in the order the requests were made.
///
/// Pixels are only asked for while a request is armed; frames that are delivered anyway (for
/// another output) are kept by reference, the newest one only, for zero shutter lag. Worker
/// threads exist only while requests are queued: up to ``maximumEncoders`` (two, on a machine
/// with two cores or more), each taking the next request in order, so a burst encodes on two
/// cores; a finished photo waits for the ones before it, so reports keep the requests' order.
/// A request that switches the camera's format runs alone (nothing else is taken while it is
/// served, and it waits for those before it). A queued request keeps its output alive until it
/// has reported.
final class PhotoCaptureEngine: @unchecked Sendable {
    // Unchecked Sendable: its state is guarded by an NSCondition (a wait Mutex cannot do).
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var queue: [PhotoRequest] = []
    private var armed: [PhotoRequest] = []
    private var usedIDs = Set<Int64>()
    /// Worker threads serving the queue.
    private var workers = 0
    /// Whether a thread is reporting finished requests (one at a time, in order).
    private var reporting = false
    /// The most requests served at once so far: what bursts got of ``maximumEncoders``. Guarded
    /// by `condition`.
    private var peakServed = 0

    /// The most requests served at once so far.
    var peakConcurrentRequests: Int {
        condition.lock()
        defer { condition.unlock() }
        return peakServed
    }
    /// Read on the device thread for every frame, so kept outside the lock.
    private let armedCount = Atomic<Int>(0)
    /// Whether requests may take the newest frame already delivered.
    let zeroShutterLag = Atomic<Bool>(false)
    /// The newest frame with pixels the session delivered, while ``zeroShutterLag`` is on, and
    /// when it came.
    private let newest = Mutex<(sample: SampleBuffer, arrival: MediaTime)?>(nil)
    private let threadName: String
    /// What the owner calls a request in messages ("photo", "still").
    private let noun: String

    /// How many requests are served (waited for and encoded) at once: two where there are two
    /// cores, since a JPEG encode keeps one busy. Guarded by `condition`.
    private var encoders = min(2, ProcessInfo.processInfo.activeProcessorCount)

    init(threadName: String, noun: String) {
        self.threadName = threadName
        self.noun = noun
    }

    /// How many requests are served at once (at least 1); a change applies to the workers
    /// started from then on.
    var maximumEncoders: Int {
        get {
            condition.lock()
            defer { condition.unlock() }
            return encoders
        }
        set {
            condition.lock()
            encoders = max(1, newValue)
            condition.unlock()
        }
    }

    /// Requests accepted and not yet reported to the end.
    var inFlightCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return queue.count
    }

    // MARK: Requests

    /// Checks and resolves `settings` for the output `owner`, then queues the request. A request
    /// that cannot be served is queued too, already failed, so it reports in order.
    func submit(_ settings: CapturePhotoSettings, sink: PhotoSink, owner: CaptureOutput,
                fileTypes: [PhotoFileType], ceiling: PhotoDimensions?) {
        let request: PhotoRequest
        do throws(CaptureError) {
            request = try resolve(settings, sink: sink, owner: owner, fileTypes: fileTypes, ceiling: ceiling)
        } catch {
            request = PhotoRequest(refused: error, settings: settings, sink: sink)
        }
        enqueue(request)
    }

    private func enqueue(_ request: PhotoRequest) {
        condition.lock()
        // Under the lock, so the order of willBegin is the order of the queue, and before the
        // request is armed, so willBegin is on its queue before willCapture can be.
        request.sink.willBegin(request.resolved)
        queue.append(request)
        if request.failure != nil { announceCapture(request) }
        let armsNow = request.failure == nil && request.plan?.stillFormat == nil
        if armsNow, let frame = freshNewestFrame(for: request) {
            request.frame = frame
            announceCapture(request)
        } else if armsNow {
            arm(request)
        }
        // A busy worker may be waiting for its frame: the next request gets one of its own.
        if workers < encoders, queue.contains(where: { !$0.claimed }) {
            workers += 1
            _ = WorkerThread(name: threadName) { [self] _ in drain() }
        }
        condition.unlock()
        // A session that stopped between the checks and the arming tells no one about it.
        if armsNow, let session = request.session, !session.isRunning {
            fail(request, with: .invalidState("the session stopped before the photo's frame arrived"))
        }
    }

    /// Queues a request refused by the caller's own checks, so it reports in order.
    func submitRefused(_ settings: CapturePhotoSettings, error: CaptureError, sink: PhotoSink) {
        enqueue(PhotoRequest(refused: error, settings: settings, sink: sink))
    }

    private func resolve(_ settings: CapturePhotoSettings, sink: PhotoSink, owner: CaptureOutput,
                         fileTypes: [PhotoFileType], ceiling: PhotoDimensions?) throws(CaptureError) -> PhotoRequest {
        condition.lock()
        let fresh = usedIDs.insert(settings.uniqueID).inserted
        condition.unlock()
        guard fresh else {
            throw .invalidArgument("photo settings \(settings.uniqueID) were already used: make new settings, or a copy with CapturePhotoSettings(from:)")
        }
        // Whether a raw photo can be written depends on the camera's format: checked below.
        guard fileTypes.contains(settings.fileType), settings.fileType.isRaw || settings.fileType.isEncodable else {
            throw CaptureError(.unsupportedFormat, "\(settings.fileType) photos cannot be written here; available: \(fileTypes.filter(\.isEncodable).map(\.rawValue).joined(separator: ", "))")
        }
        guard settings.quality.isFinite, (0...1).contains(settings.quality) else {
            throw .invalidArgument("photo quality \(settings.quality) is out of range (0...1)")
        }
        if settings.livePhotoMovieFileURL != nil {
            throw CaptureError(.notSupported, "Live Photos cannot be taken here: no Linux camera records one (isLivePhotoCaptureSupported is false)")
        }
        if let wanted = settings.previewPhotoDimensions, wanted.width <= 0 || wanted.height <= 0 {
            throw .invalidArgument("the preview photo's dimensions \(wanted) must be positive")
        }
        if let format = settings.previewPhotoPixelFormat, format != .bgra {
            throw CaptureError(.unsupportedFormat, "preview photos are BGRA, not \(format)")
        }
        if let wanted = settings.maxPhotoDimensions {
            guard wanted.width > 0, wanted.height > 0 else { throw .invalidArgument("maxPhotoDimensions \(wanted) must be positive") }
            if let ceiling, !wanted.fits(in: ceiling) {
                throw .invalidArgument("maxPhotoDimensions \(wanted) exceeds the output's maxPhotoDimensions \(ceiling)")
            }
        }
        guard let session = owner.session else {
            throw .invalidState("the photo output is not in a session: add it with session.addOutput(_:) first")
        }
        guard let connection = owner.connection(with: .video), let device = connection.device else {
            throw .invalidState("no camera feeds the photo output: add a camera input to its session")
        }
        guard connection.isEnabled else { throw .invalidState("the photo output's connection is disabled") }
        switch session.state {
        case .running: break
        case .interrupted:
            throw CaptureError(.deviceDisconnected, "\(device.localizedName) is not available: the session is interrupted", deviceID: device.uniqueID)
        default:
            throw .invalidState("the session is \(session.state.rawValue): start it with startRunning() before capturing photos")
        }
        guard device.supportedPhotoFlashModes.contains(settings.flashMode) else {
            throw CaptureError(.invalidArgument, "flash mode '\(settings.flashMode.rawValue)' is not supported by \(device.localizedName) (supported: \(device.supportedPhotoFlashModes.map(\.rawValue).joined(separator: ", ")))",
                               deviceID: device.uniqueID)
        }

        let active = device.activeFormat
        let activeSize = PhotoDimensions(width: active.width, height: active.height)
        let raw = settings.fileType.isRaw
        if raw || settings.rawPhotoPixelFormat != nil { try Self.checkRaw(settings, streamed: active, by: device) }
        if let processed = settings.processedFileType {
            guard raw else {
                throw .invalidArgument("a processed file type goes with a raw photo: make the settings with CapturePhotoSettings(rawPixelFormat:processedFileType:)")
            }
            guard !processed.isRaw, processed.isEncodable, fileTypes.contains(processed) else {
                throw CaptureError(.unsupportedFormat, "the processed photo cannot be \(processed) here; available: \(fileTypes.filter { !$0.isRaw && $0.isEncodable }.map(\.rawValue).joined(separator: ", "))")
            }
        }
        // A raw photo is the sensor's samples as they came: never scaled, switched or turned.
        let box = raw ? activeSize : settings.maxPhotoDimensions ?? activeSize
        let stillFormat = raw ? nil : Self.stillFormat(for: box, on: device, in: session)
        let frameSize = stillFormat.map { PhotoDimensions(width: $0.width, height: $0.height) } ?? activeSize.scaledToFit(box)
        let orientation = EXIFOrientation(rotationAngle: connection.videoRotationAngle, isMirrored: connection.isVideoMirrored)
        let turnsPixels = settings.appliesOrientationToPixels && !raw
        let turns = turnsPixels && orientation.swapsDimensions
        let resolved = CaptureResolvedPhotoSettings(
            uniqueID: settings.uniqueID, fileType: settings.fileType, quality: settings.quality,
            photoDimensions: turns ? PhotoDimensions(width: frameSize.height, height: frameSize.width) : frameSize,
            flashMode: settings.flashMode, orientation: turnsPixels ? .up : orientation,
            appliesOrientationToPixels: turnsPixels, switchesDeviceFormat: stillFormat != nil,
            previewDimensions: settings.previewPhotoPixelFormat == nil ? .zero
                : frameSize.scaledToFit(settings.previewPhotoDimensions ?? PhotoDimensions(width: 256, height: 256)),
            previewPixelFormat: settings.previewPhotoPixelFormat, expectedPhotoCount: settings.processedFileType == nil ? 1 : 2)
        // A few frame intervals, and never less than a few seconds: the frame is due within one.
        // A format switch restarts the camera first: a libcamera pipeline reconfigures and
        // allocates full-resolution buffers, which takes seconds on a small board.
        let interval = max(device.activeVideoMaxFrameDuration.seconds, stillFormat.map { $0.maxFrameDuration.seconds } ?? 0)
        var plan = PhotoPlan(settings: settings, box: box, stillFormat: stillFormat, orientation: orientation,
                             make: device.manufacturer, model: device.localizedName, hasFlash: device.hasPhotoFlash,
                             frameTimeoutSeconds: max(3, (interval.isFinite ? interval : 0) * 5) + (stillFormat == nil ? 0 : 8))
        // The newest frame serves when it came at most a frame interval ago (and a half, for the
        // jitter of deliveries): earlier, the camera has stalled, and the next one is the photo.
        let frameInterval = device.activeVideoMaxFrameDuration
        if stillFormat == nil, !settings.waitsForNextFrame, settings.flashMode == .off, frameInterval.isValid, frameInterval > .zero {
            plan.newestFrame = (MediaTime(value: frameInterval.value * 3, timescale: frameInterval.timescale * 2), activeSize)
        }
        return PhotoRequest(plan: plan, resolved: resolved, sink: sink, session: session, device: device)
    }

    /// Throws unless a raw photo as `settings` asks can be taken from `device` streaming
    /// `streamed`: DNG settings, libtiff installed, a Bayer format streamed, and the one asked for.
    private static func checkRaw(_ settings: CapturePhotoSettings, streamed: CaptureDevice.Format, by device: CaptureDevice) throws(CaptureError) {
        guard settings.fileType.isRaw else {
            throw .invalidArgument("a raw pixel format needs a raw file type: make the settings with CapturePhotoSettings(rawPixelFormat:)")
        }
        guard settings.fileType.isEncodable else {
            throw CaptureError(.notSupported, "DNG photos need libtiff, which cannot be loaded here (install libtiff6)")
        }
        guard let format = streamed.pixelFormat, format.isBayer else {
            let bayer = Set(device.formats.compactMap(\.pixelFormat).filter(\.isBayer)).map(\.rawValue).sorted()
            throw CaptureError(.unsupportedFormat, "\(device.localizedName) streams \(streamed.pixelFormat?.rawValue ?? streamed.fourCC ?? "a compressed format"), not raw Bayer samples: "
                               + (bayer.isEmpty ? "it offers no Bayer format, so it cannot take raw photos"
                                  : "make one of its Bayer formats (\(bayer.joined(separator: ", "))) the active format to take raw photos"),
                               deviceID: device.uniqueID)
        }
        if let wanted = settings.rawPhotoPixelFormat, wanted != format {
            throw CaptureError(.unsupportedFormat, "\(device.localizedName) streams \(format), so a raw photo cannot be \(wanted) (availableRawPhotoPixelFormatTypes: \(format))",
                               deviceID: device.uniqueID)
        }
    }

    /// The device format to switch to so the photo gets more pixels than the stream has, within
    /// `box`; nil when the active format is already the best fit, or when another output on the
    /// device could not take a change of frame size (a recording movie file).
    static func stillFormat(for box: PhotoDimensions, on device: CaptureDevice, in session: CaptureSession) -> CaptureDevice.Format? {
        let active = device.activeFormat
        let larger = device.formats.filter {
            $0.mediaType == .video && $0.width <= box.width && $0.height <= box.height && $0.width * $0.height > active.width * active.height
        }
        guard !larger.isEmpty else { return nil }
        let blocked = session.connections.contains { connection in
            guard connection.device == device, connection.isEnabled, let output = connection.output else { return false }
            return !(output is SampleBufferOutput || output is CapturePhotoOutput || output is CaptureStillImageOutput)
        }
        guard !blocked else { return nil }
        // At one size: the stream's own layout, then anything but raw Bayer (a processed photo
        // from raw samples is only as good as libswscale's demosaicing).
        func preference(_ format: CaptureDevice.Format) -> Int {
            format.pixelFormat == active.pixelFormat ? 2 : format.pixelFormat?.isBayer == true ? 0 : 1
        }
        return larger.max { a, b in
            if a.width * a.height != b.width * b.height { return a.width * a.height < b.width * b.height }
            return preference(a) < preference(b)
        }
    }

    // MARK: Frames (device thread)

    /// The newest delivered frame, if the request may take it: zero shutter lag is on, the
    /// plan allows it, and the frame came recently enough and has the size the photo expects.
    /// Its age counts from its delivery, not its capture: a camera hands a frame over a frame
    /// interval or more after it began exposing it.
    private func freshNewestFrame(for request: PhotoRequest) -> SampleBuffer? {
        guard zeroShutterLag.load(ordering: .relaxed), let limit = request.plan?.newestFrame,
              let (sample, arrival) = newest.withLock({ $0 }), let pixels = sample.pixelBuffer,
              pixels.width == limit.size.width, pixels.height == limit.size.height,
              MonotonicClock.now() - arrival <= limit.maximumAge
        else { return nil }
        return sample
    }

    /// Lets go of the kept frame (its buffer may belong to the camera's driver).
    func forgetNewestFrame() { newest.withLock { $0 = nil } }

    /// Must be called with the lock held.
    private func arm(_ request: PhotoRequest) {
        armed.append(request)
        armedCount.store(armed.count, ordering: .releasing)
    }

    /// Whether a request waits for a frame: the only time the engine looks at pixels.
    var isArmed: Bool { armedCount.load(ordering: .acquiring) > 0 }

    /// Gives `sample` to every armed request it suits. Runs on the device thread.
    func receive(_ sample: SampleBuffer) {
        // Replacing the kept frame releases the one before: at most one frame is held.
        if zeroShutterLag.load(ordering: .relaxed), sample.pixelBuffer != nil, !sample.pixelsAreStandIn {
            let arrival = MonotonicClock.now()
            newest.withLock { $0 = (sample, arrival) }
        }
        guard armedCount.load(ordering: .acquiring) > 0, let frame = sample.pixelBuffer else { return }
        condition.lock()
        var assigned = false
        armed.removeAll { request in
            if let required = request.requiredDimensions, required.width != frame.width || required.height != frame.height { return false }
            request.frame = sample
            announceCapture(request)
            assigned = true
            return true
        }
        armedCount.store(armed.count, ordering: .releasing)
        if assigned { condition.broadcast() }
        condition.unlock()
    }

    /// Must be called with the lock held, so `willCapture` is queued before the worker can
    /// finish the request.
    private func announceCapture(_ request: PhotoRequest) {
        guard !request.announcedCapture else { return }
        request.announcedCapture = true
        request.sink.captured(request.resolved)
    }

    /// Fails every request still waiting for its frame (the session stopped, or its camera went
    /// away).
    func failWaiting(with error: CaptureError) {
        forgetNewestFrame()
        condition.lock()
        for request in queue where request.frame == nil && request.failure == nil { failLocked(request, with: error) }
        condition.unlock()
    }

    /// The owner's output left its session: pending requests fail.
    func outputWasRemoved() {
        failWaiting(with: .invalidState("the output was removed from its session before the \(noun)'s frame arrived"))
    }

    /// The session stopped: pending requests fail.
    func sessionDidStop() {
        failWaiting(with: .invalidState("the session stopped before the \(noun)'s frame arrived"))
    }

    /// The camera went away: pending requests fail.
    func cameraWasLost() {
        failWaiting(with: CaptureError(.deviceDisconnected, "the camera went away before the \(noun)'s frame arrived"))
    }

    private func fail(_ request: PhotoRequest, with error: CaptureError) {
        condition.lock()
        failLocked(request, with: error)
        condition.unlock()
    }

    /// Must be called with the lock held. A request that already has its frame keeps it.
    private func failLocked(_ request: PhotoRequest, with error: CaptureError) {
        guard request.frame == nil, request.failure == nil else { return }
        request.failure = error
        armed.removeAll { $0 === request }
        armedCount.store(armed.count, ordering: .releasing)
        announceCapture(request)
        condition.broadcast()
    }

    // MARK: Worker

    /// Serves the next request in order until none is left to take, then ends the thread.
    private func drain() {
        while true {
            condition.lock()
            guard let request = nextRequest() else {
                workers -= 1
                condition.unlock()
                return
            }
            request.claimed = true
            peakServed = max(peakServed, queue.count { $0.claimed && $0.outcome == nil })
            condition.unlock()
            serve(request)
        }
    }

    /// The first request no worker has taken, if it may be served now: not while a format
    /// switch is being served, and a format switch only once those before it are done (a worker
    /// that finds none leaves; the one serving the last request before it takes it next). Must
    /// be called with the lock held.
    private func nextRequest() -> PhotoRequest? {
        guard let next = queue.first(where: { !$0.claimed }) else { return nil }
        let serving = queue.filter { $0.claimed && $0.outcome == nil }
        if serving.contains(where: \.switchesFormat) { return nil }
        if next.switchesFormat, !serving.isEmpty { return nil }
        return next
    }

    /// Keeps the served request's outcome and reports every finished request at the front of
    /// the queue, in order, each taken off the queue before its report, so whoever is told the
    /// request is over no longer sees it in flight. One thread reports at a time; a request
    /// that finishes meanwhile is reported by it.
    private func complete(_ request: PhotoRequest, with outcomes: [PhotoOutcome]) {
        condition.lock()
        request.outcome = outcomes
        guard !reporting else {
            condition.unlock()
            return
        }
        reporting = true
        while let first = queue.first, let outcome = first.outcome {
            queue.removeFirst()
            condition.unlock()
            first.sink.finished(outcome)
            condition.lock()
        }
        reporting = false
        condition.unlock()
    }

    private func serve(_ request: PhotoRequest) {
        if let plan = request.plan, let format = plan.stillFormat, let session = request.session, let device = request.device {
            condition.lock()
            let pending = request.failure == nil
            condition.unlock()
            if pending {
                do throws(CaptureError) {
                    try session.streamingStillFormat(format, on: device) {
                        condition.lock()
                        request.requiredDimensions = PhotoDimensions(width: format.width, height: format.height)
                        arm(request)
                        condition.unlock()
                        waitForFrame(request, timeout: plan.frameTimeoutSeconds)
                    }
                } catch {
                    fail(request, with: error)
                }
            }
        } else if let plan = request.plan {
            waitForFrame(request, timeout: plan.frameTimeoutSeconds)
        }

        condition.lock()
        let frame = request.frame
        let failure = request.failure
        let resolved = request.resolved
        condition.unlock()
        guard let frame, let plan = request.plan else {
            let error = failure ?? .internalError("a photo request ended with neither a frame nor an error")
            complete(request, with: [PhotoOutcome(photo: CapturePhoto(resolvedSettings: resolved, source: nil, frameDimensions: PhotoDimensions(width: 0, height: 0),
                                                                      metadata: EXIFMetadata(), fileData: nil), error: error)])
            return
        }
        // The photo, and a processed one from the same frame when a raw request asks for it.
        let fileTypes = [plan.settings.fileType] + (plan.settings.processedFileType.map { [$0] } ?? [])
        complete(request, with: fileTypes.map { fileType in
            do throws(CaptureError) {
                return PhotoOutcome(photo: try PhotoProcessor.makePhoto(from: frame, plan: plan, resolved: resolved, fileType: fileType))
            } catch {
                return PhotoOutcome(photo: CapturePhoto(resolvedSettings: resolved.with(photoDimensions: resolved.photoDimensions, fileType: fileType),
                                                        source: frame, frameDimensions: PhotoDimensions(width: 0, height: 0),
                                                        metadata: EXIFMetadata(), fileData: nil), error: error)
            }
        })
    }

    /// Waits until the request has its frame or has failed; fails it at the deadline.
    private func waitForFrame(_ request: PhotoRequest, timeout: Double) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        while request.frame == nil, request.failure == nil {
            if !condition.wait(until: deadline), request.frame == nil, request.failure == nil {
                let name = request.device?.localizedName ?? "the camera"
                failLocked(request, with: CaptureError(.invalidState, "no frame arrived from \(name) within \(Int(timeout.rounded())) s for the photo",
                                                       deviceID: request.device?.uniqueID))
            }
        }
        condition.unlock()
    }
}
