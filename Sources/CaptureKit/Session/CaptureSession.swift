import Dispatch
import Synchronization

/// Connects capture devices to outputs and runs the capture (`AVCaptureSession`).
///
/// ```swift
/// let session = CaptureSession()
/// let frames = CaptureVideoDataOutput()
/// try session.configure {
///     try session.setSessionPreset(.hd1280x720)
///     try session.addInput(CaptureDeviceInput(device: CaptureDevice.default(for: .video)!))
///     try session.addOutput(frames)
/// }
/// try await session.start()
/// for await frame in frames.sampleBuffers.prefix(30) { print(frame.presentationTimeStamp) }
/// try await session.stop()
/// ```
///
/// Configuration made between ``beginConfiguration()`` and ``commitConfiguration()`` is applied
/// all at once, also while running: a frame is delivered either entirely under the old
/// configuration or entirely under the new one. Calls outside such a pair commit at once.
/// Configuration and the blocking lifecycle calls are thread-safe; the session serializes them.
/// See ``State`` for the lifecycle: starting a running session and stopping a stopped one
/// return quietly, as on AVFoundation; starting inside a configuration block throws
/// `.invalidState`. ``configure(_:)`` is the safe form of a configuration block.
public class CaptureSession: @unchecked Sendable {
    // Unchecked Sendable: not final only so that CaptureMultiCamSession can be one (as on
    // AVFoundation); every stored property is immutable and Sendable, its state behind locks.
    /// The configuration as the user has set it (staged) and as it runs (committed).
    struct Graph: Sendable {
        var inputs: [CaptureInput] = []
        var outputs: [CaptureOutput] = []
        var preset: Preset = .high
        /// Inputs and outputs added "with no connections": only manual connections reach them.
        var unlinked: Set<ObjectIdentifier> = []
        /// The connections added with ``CaptureSession/addConnection(_:)``.
        var manualConnections: [CaptureConnection] = []
    }

    struct Model: Sendable {
        var staged = Graph()
        var committed = Graph()
        var configurationDepth = 0
        /// The state and the lost devices; changed only through its transitions.
        var lifecycle = SessionLifecycle()
        var connections: [CaptureConnection] = []
        var streams: [String: ActiveStream] = [:]
        var routes: [String: DeviceRoute] = [:]
        var resumesWhenDevicesReturn = true
        var nextGeneration = 0
    }

    /// A running device stream and the configuration it was started with.
    struct ActiveStream: Sendable {
        var stream: any DeviceStream
        var configuration: StreamConfiguration
        var device: CaptureDevice
        /// Tells this stream's events from those of an earlier stream of the same device.
        var generation: Int
    }

    let model = Mutex(Model())
    /// Serializes everything that opens or closes devices; device events hop onto it too.
    let control = DispatchQueue(label: "CaptureKit.session.control")
    let eventHub = EventHub()

    /// Whether inputs of one media may be several (a ``CaptureMultiCamSession``).
    let takesSeveralCameras: Bool

    /// A new, idle session with the `.high` preset.
    public convenience init() {
        self.init(takesSeveralCameras: false)
    }

    init(takesSeveralCameras: Bool) {
        self.takesSeveralCameras = takesSeveralCameras
        if takesSeveralCameras {
            model.withLock { model in
                model.staged.preset = .inputPriority
                model.committed.preset = .inputPriority
            }
        }
        eventHub.attach(to: self)
    }

    deinit {
        let (streams, devices) = model.withLock { model in
            (model.streams.values.map(\.stream), model.streams.values.map(\.device))
        }
        for stream in streams { stream.stop() }
        for device in devices {
            device.release(for: self)
            device.observeSettings(for: self, nil)
        }
    }

    // MARK: State

    /// Where the session is in its lifecycle.
    public var state: State { model.withLock { $0.lifecycle.state } }

    /// Whether the session is capturing (running or interrupted), as `isRunning`.
    public var isRunning: Bool { model.withLock { $0.lifecycle.streamsRun } }

    /// Whether a device has gone away while running.
    public var isInterrupted: Bool { state == .interrupted }

    /// Whether capture resumes by itself when a lost device returns: the same device (same
    /// `uniqueID`) is reopened with the format and frame rate it had, the session posts
    /// `.interruptionEnded`, and data outputs see the gap as a `.discontinuity` drop. Another
    /// device appearing never takes a lost one's place. Default `true`; when `false` the session
    /// stays interrupted until it is stopped and started again, or the lost input is removed.
    public var resumesWhenDevicesReturn: Bool {
        get { model.withLock { $0.resumesWhenDevicesReturn } }
        set { model.withLock { $0.resumesWhenDevicesReturn = newValue } }
    }

    /// The inputs, including changes not yet committed.
    public var inputs: [CaptureInput] { model.withLock { $0.staged.inputs } }

    /// The outputs, including changes not yet committed.
    public var outputs: [CaptureOutput] { model.withLock { $0.staged.outputs } }

    /// The connections of the committed configuration.
    public var connections: [CaptureConnection] { model.withLock { $0.connections } }

    // MARK: Lifecycle

    /// Starts capture and returns once every device delivers (`startRunning()`). As on
    /// AVFoundation, a session already running (or interrupted) returns at once without a new
    /// `.didStartRunning`, so code may start from several places. Throws `.invalidState`
    /// inside a configuration block (a mistake: the block's changes would not be in force),
    /// and the device's error when one cannot start (the session then stays idle, nothing
    /// half-started).
    public func startRunning() throws(CaptureError) {
        try onControl { () throws(CaptureError) in try performStart() }
    }

    /// Stops capture and returns once no device delivers any more (`stopRunning()`). A session
    /// that does not run returns at once, as on AVFoundation. It throws nothing today; it is
    /// declared `throws` because it did before (stopping an idle session was `.invalidState`),
    /// so `try session.stopRunning()` stays free of warnings.
    public func stopRunning() throws(CaptureError) {
        try onControl { () throws(CaptureError) in performStop() }
    }

    /// ``startRunning()`` without blocking the caller's thread.
    public func start() async throws(CaptureError) {
        try await onControlAsync { () throws(CaptureError) in try self.performStart() }
    }

    /// ``stopRunning()`` without blocking the caller's thread.
    public func stop() async throws(CaptureError) {
        try await onControlAsync { () throws(CaptureError) in self.performStop() }
    }

    // MARK: Events

    /// A new stream of this session's events from now on; every access makes an independent
    /// stream.
    ///
    /// ```swift
    /// for await event in session.events { if case .wasInterrupted(let why) = event { print(why) } }
    /// ```
    public var events: AsyncStream<Event> { eventHub.makeStream() }

    /// Sets who receives the session's events and on which queue (the delegate is held weakly).
    public func setDelegate(_ delegate: (any CaptureSessionDelegate)?, queue: DispatchQueue?) {
        eventHub.setDelegate(delegate, queue: queue)
    }

    /// Reports a failure that happened while running (from an output, for example).
    package func reportRuntimeError(_ error: CaptureError) {
        eventHub.post(.runtimeError(error))
    }

    // MARK: Control queue

    func onControl<R>(_ body: () throws(CaptureError) -> R) throws(CaptureError) -> R {
        dispatchPrecondition(condition: .notOnQueue(control))
        let result: Result<R, CaptureError> = control.sync {
            do throws(CaptureError) { return .success(try body()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    private func onControlAsync(_ body: @escaping @Sendable () throws(CaptureError) -> Void) async throws(CaptureError) {
        let result: Result<Void, CaptureError> = await withCheckedContinuation { continuation in
            control.async {
                do throws(CaptureError) {
                    try body()
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        try result.get()
    }
}
