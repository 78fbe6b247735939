/// What every device backend (virtual, V4L2, PulseAudio, ALSA, file) provides. A backend owns
/// its device's thread and file descriptors; the rest of CaptureKit only sees this protocol.
///
/// A stream outlives its device: when the device goes away it reports `.disconnected` and
/// watches for the same device (same unique ID) to return; then it reopens it with the same
/// configuration and reports `.reconnected` (or `.cannotResume` when the returned device
/// refuses the configuration), the frames it could not capture meanwhile reported as
/// `.droppedFrames`, with sequence numbers and timestamps still increasing.
protocol DeviceBackend: AnyObject, Sendable {
    /// Identity and kind; constant for the backend's lifetime.
    var descriptor: DeviceDescriptor { get }
    /// Everything the device can capture, best first within each size.
    var formats: [CaptureDevice.Format] { get }
    /// Whether the device is present now.
    var isConnected: Bool { get }
    /// Whether the device produces in real time (a camera) rather than as fast as it is read (an
    /// unpaced file or virtual device). Lossless consumers may hold back a non-live device
    /// instead of dropping its samples.
    var isLive: Bool { get }
    /// The coded video the device sends now, when a recording may store its packets as they
    /// came (a network camera's H.264 or HEVC, with its parameter sets); nil for devices that
    /// deliver pixels (a webcam's JPEGs pass through by another way: each is a whole picture).
    var codedVideo: CodecParameters? { get }
    /// Starts capturing with `configuration`, delivering on the device's own thread to `sink`
    /// until the returned stream is stopped.
    func startStream(_ configuration: StreamConfiguration, sink: StreamSink) throws(CaptureError) -> any DeviceStream
}

extension DeviceBackend {
    var isLive: Bool { true }
    var codedVideo: CodecParameters? { nil }

    /// Throws what every backend checks before streaming: a format the device has, and a device
    /// that is present.
    func checkStartable(_ format: CaptureDevice.Format) throws(CaptureError) {
        guard formats.contains(format) else {
            throw CaptureError(.unsupportedFormat, "\(descriptor.localizedName) has no format \(format)", deviceID: descriptor.uniqueID)
        }
        guard isConnected else {
            throw CaptureError(.deviceDisconnected, "\(descriptor.localizedName) is not connected", deviceID: descriptor.uniqueID)
        }
    }
}

/// A backend that applies formats and frame rates to hardware as soon as they are chosen and
/// reports what the hardware really took (drivers substitute sizes and rates silently).
protocol ConfigurableDeviceBackend: DeviceBackend {
    /// Applies `configuration` and returns what the device chose.
    func apply(_ configuration: StreamConfiguration) throws(CaptureError) -> StreamConfiguration
}

/// A running capture from one device.
protocol DeviceStream: AnyObject, Sendable {
    /// Stops capture and returns once no further sample or event will be delivered.
    func stop()
}

extension DeviceStream {
    /// How often a stream whose device went away looks for it again: well within a second of
    /// its return, and cheap while it is away.
    static var returnPollMilliseconds: Int64 { 200 }

    /// Calls `reopen` every ``returnPollMilliseconds`` on the stream's thread until the device
    /// is back (what `reopen` returned) or the stream is stopped (nil). `reopen` returns nil
    /// while the device is away and throws when it is back but cannot capture as before, which
    /// is reported (`.cannotResume`) once per return.
    static func waitForReturn<Capture>(_ thread: WorkerThread, sink: StreamSink,
                                       reopen: () throws(CaptureError) -> Capture?) -> Capture? {
        var refused = false
        while !thread.isStopping {
            do {
                if let capture = try reopen() { return capture }
                refused = false
            } catch {
                if !refused { sink.event(.cannotResume(error)) }
                refused = true
            }
            thread.sleep(untilNanoseconds: MonotonicClock.nanoseconds() + returnPollMilliseconds * 1_000_000)
        }
        return nil
    }
}

/// Who a device is, as discovery reports it.
struct DeviceDescriptor: Sendable {
    var uniqueID: String
    var localizedName: String
    var modelID: String
    var manufacturer: String
    var deviceType: CaptureDevice.DeviceType
    var position: CaptureDevice.Position
    var mediaType: MediaType
    /// What the device really is, whatever `deviceType` it claims.
    var origin: Origin = .hardware
    /// The bus whose bandwidth the device shares with others (USB), if any.
    var bus: CaptureDevice.Bus?

    /// Where a device comes from. A virtual camera may claim to be a `.builtInWideAngleCamera`
    /// facing `.back`, so its type cannot tell.
    enum Origin: Sendable {
        /// A device of the machine (or of its sound server).
        case hardware
        /// Made up by CaptureKit on request: a virtual or file-backed device.
        case virtual
        /// One of the built-in virtual devices, which stand in for hardware on a machine that
        /// has none.
        case standIn
    }
}

/// What a stream is asked to do.
struct StreamConfiguration: Sendable, Equatable {
    var format: CaptureDevice.Format
    /// The interval between frames (video only).
    var frameDuration: MediaTime
    /// How long a camera may deliver nothing before its stream treats it as lost
    /// (``CaptureDevice/stallTimeout``); nil: never.
    var stallTimeout: Duration? = nil
    /// Whether the stream serves a photo's switch to a larger format rather than video (a
    /// libcamera camera captures it with its still role: full-resolution processing).
    var servesStills = false
}

/// Where a stream sends what it captures. The closures run on the device's thread and must
/// return quickly.
struct StreamSink: Sendable {
    var deliver: @Sendable (SampleBuffer) -> Void
    var event: @Sendable (DeviceStreamEvent) -> Void
    /// Whether anything will look at the next frame's pixels: a device that can hand out its
    /// coded frames undecoded (`SampleBuffer.pixelsAreStandIn`) asks before each frame.
    var wantsPixels: @Sendable () -> Bool = { true }
}

/// Things a running stream reports besides samples.
enum DeviceStreamEvent: Sendable {
    /// The device went away; no samples until `.reconnected`.
    case disconnected
    /// The device is back and capturing again.
    case reconnected
    /// The device is back but cannot capture with the stream's configuration; the stream keeps
    /// waiting for it (it may return again, as it was).
    case cannotResume(CaptureError)
    /// The device could not keep up and skipped `count` frames.
    case droppedFrames(count: Int)
    /// The stream died; it delivers nothing more.
    case failed(CaptureError)
    /// The stream's source has no more samples (a file-backed device reached the end of its
    /// file without looping); it delivers nothing more, but nothing went wrong.
    case endOfStream
}

/// A source of devices for discovery (one per backend kind).
protocol DeviceProvider: Sendable {
    /// The backends present now.
    func backends() -> [any DeviceBackend]

    /// From now on, tells `reports` about devices that come and go without discovery looking
    /// (a sound server's subscription events, libcamera's hot-plug). Providers whose devices are
    /// found by looking ignore it.
    func report(to reports: ConnectionReports)
}

extension DeviceProvider {
    func report(to reports: ConnectionReports) {}
}
