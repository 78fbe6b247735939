import Glibc
import Synchronization

/// A V4L2 camera: formats and controls read at discovery, settings applied with S_FMT/S_PARM
/// and read back, streaming through memory-mapped buffers on a thread of its own.
final class V4L2DeviceBackend: DeviceBackend, CameraControlBackend, ConfigurableDeviceBackend {
    /// Buffers requested per stream: few, so a frame is never older than a few frame times,
    /// but enough that consumers can hold two frames by reference while the driver fills two.
    static let defaultBufferCount = 4

    let node: V4L2Node
    let descriptor: DeviceDescriptor
    let formats: [CaptureDevice.Format]
    /// FourCCs the node offers that CaptureKit cannot read.
    let unsupportedFourCCs: [V4L2FourCC]
    let bufferCount: Int
    private let opener: any V4L2DeviceOpener
    /// Where to look for the camera when it comes back after a loss.
    private let discovery: V4L2Discovery
    private let controlCache: Mutex<[CaptureDevice.Control]>
    private let gone = Atomic<Bool>(false)
    /// The buffers of the latest stream, alive until its last lent frame is released.
    private let previousRing = Mutex<WeakRing>(WeakRing())

    private struct WeakRing {
        weak var ring: V4L2BufferRing?
    }

    /// How long a new configuration waits for frames of a stopped stream to be let go: the
    /// driver refuses new formats (EBUSY) while the old buffers are still mapped.
    static let releaseWait: Int64 = 2_000_000_000

    var devicePath: String { node.path }

    /// Reads the node's formats and controls.
    /// `discovery` is where the camera is looked for after a loss; by default the node's own
    /// directory.
    init(node: V4L2Node, opener: any V4L2DeviceOpener, bufferCount: Int = V4L2DeviceBackend.defaultBufferCount,
         discovery: V4L2Discovery? = nil) throws(CaptureError) {
        self.node = node
        self.opener = opener
        self.bufferCount = bufferCount
        let directory = String(node.path[..<(node.path.lastIndex(of: "/") ?? node.path.startIndex)])
        self.discovery = discovery ?? V4L2Discovery(devDirectory: directory.isEmpty ? "/" : directory, opener: opener)
        descriptor = node.descriptor
        let io = try opener.open(node.path)
        defer { io.close() }
        let enumerated = try V4L2FormatEnumerator(io: io, bufferType: node.bufferType).formats()
        formats = enumerated.formats
        unsupportedFourCCs = enumerated.unsupported
        controlCache = Mutex((try? V4L2ControlSet.controls(of: io)) ?? [])
    }

    /// Whether the node is there and answers. A device that returned ENODEV is asked again:
    /// some drivers (vivid's "Disconnect") keep the node and come back once every handle of
    /// the old session is closed.
    var isConnected: Bool {
        guard opener.nodeExists(node.path) else { return false }
        guard gone.load(ordering: .acquiring) else { return true }
        guard let io = try? opener.open(node.path) else { return false }
        defer { io.close() }
        guard (try? io.queryCapability()) == node.capability else { return false }
        gone.store(false, ordering: .releasing)
        return true
    }

    /// Marks the device as gone (its node returned ENODEV), or back.
    func markGone(_ isGone: Bool = true) { gone.store(isGone, ordering: .releasing) }

    // MARK: Controls

    var cameraControls: [CaptureDevice.Control] { controlCache.withLock { $0 } }

    func value(of control: CaptureDevice.Control) throws(CaptureError) -> Int64 {
        let io = try opener.open(node.path)
        defer { io.close() }
        let value = try io.controlValue(id: control.id, is64Bit: control.kind == .integer64)
        // Bitmasks are unsigned 32-bit: keep the top bit a bit, not a sign.
        return control.kind == .bitmask ? Int64(UInt32(truncatingIfNeeded: value)) : value
    }

    func setValue(_ value: Int64, of control: CaptureDevice.Control) throws(CaptureError) {
        let io = try opener.open(node.path)
        defer { io.close() }
        try io.setControlValue(id: control.id, value: value, is64Bit: control.kind == .integer64)
        // Switching an automatic mode changes which other controls are inactive.
        if let fresh = try? V4L2ControlSet.controls(of: io) { controlCache.withLock { $0 = fresh } }
    }

    // MARK: Formats

    /// The V4L2 request for a format of this device.
    func pixFormat(for format: CaptureDevice.Format) throws(CaptureError) -> V4L2PixFormat {
        guard let code = format.fourCC, let fourCC = V4L2FourCC(string: code) else {
            throw CaptureError(.unsupportedFormat, "\(descriptor.localizedName) has no format \(format)", deviceID: descriptor.uniqueID)
        }
        return V4L2PixFormat(fourCC: fourCC, width: format.width, height: format.height)
    }

    /// Sets format and frame interval on `io`; returns what the driver took (S_FMT and S_PARM
    /// read back) as a configuration, or `.unsupportedFormat` naming the substitution when the
    /// driver chose a format this device does not list.
    func configure(_ io: any V4L2DeviceIO, _ configuration: StreamConfiguration) throws(CaptureError) -> (StreamConfiguration, V4L2PixFormat) {
        let wanted = try pixFormat(for: configuration.format)
        let got = try io.setFormat(wanted, bufferType: node.bufferType)
        guard got.planeCount == 1 else {
            // Formats whose planes live in separate buffers (NM12, YM12) are not among those listed.
            throw CaptureError(.unsupportedFormat, "\(descriptor.localizedName) puts \(got.fourCC) in \(got.planeCount) separate buffers, which CaptureKit does not read",
                               operation: "VIDIOC_S_FMT", deviceID: descriptor.uniqueID, path: node.path)
        }
        guard let format = formats.first(where: { $0.fourCC == got.fourCC.description && $0.width == got.width && $0.height == got.height }) else {
            throw CaptureError(.unsupportedFormat,
                               "\(descriptor.localizedName) was asked for \(wanted.width)x\(wanted.height) \(wanted.fourCC) and chose \(got.width)x\(got.height) \(got.fourCC), which it does not list",
                               operation: "VIDIOC_S_FMT", deviceID: descriptor.uniqueID, path: node.path)
        }
        var duration = configuration.frameDuration
        if duration.isValid, let interval = try io.setFrameInterval(V4L2Fraction(duration), bufferType: node.bufferType)?.duration {
            duration = interval
        }
        return (StreamConfiguration(format: format, frameDuration: duration, stallTimeout: configuration.stallTimeout), got)
    }

    /// Waits (briefly) until no frame of an earlier stream of this device is held any more.
    private func waitForPreviousStream() {
        let deadline = MonotonicClock.nanoseconds() + Self.releaseWait
        while previousRing.withLock({ $0.ring != nil }), MonotonicClock.nanoseconds() < deadline {
            MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds() + 2_000_000)
        }
    }

    func apply(_ configuration: StreamConfiguration) throws(CaptureError) -> StreamConfiguration {
        waitForPreviousStream()
        let io = try opener.open(node.path)
        defer { io.close() }
        return try configure(io, configuration).0
    }

    // MARK: Streaming

    func startStream(_ configuration: StreamConfiguration, sink: StreamSink) throws(CaptureError) -> any DeviceStream {
        try checkStartable(configuration.format)
        waitForPreviousStream()
        let first = try capture(at: node.path, configuration)
        let opener = self.opener
        let watch = V4L2ReturnWatch(uniqueID: descriptor.uniqueID, lastPath: node.path, discovery: discovery)
        return V4L2Stream(first: first, frameDuration: configuration.frameDuration, stallTimeout: configuration.stallTimeout, sink: sink,
                          nodeExists: { opener.nodeExists($0) },
                          reopen: { [weak self] () throws(CaptureError) -> V4L2Stream.Capture? in
                              guard let self, let returned = watch.returnedNode() else { return nil }
                              return try self.capture(at: returned.path, configuration)
                          },
                          onDeviceGone: { [weak self] in self?.markGone() },
                          onDeviceBack: { [weak self] in self?.markGone(false) })
    }

    /// Opens the node at `path`, applies `configuration` exactly (a substitution is
    /// `.unsupportedFormat`), maps the buffers and starts streaming.
    private func capture(at path: String, _ configuration: StreamConfiguration) throws(CaptureError) -> V4L2Stream.Capture {
        let io = try opener.open(path)
        let ring: V4L2BufferRing
        let reader: V4L2FrameReader
        let applied: StreamConfiguration
        let pixFormat: V4L2PixFormat
        do throws(CaptureError) {
            (applied, pixFormat) = try configure(io, configuration)
            guard applied.format == configuration.format else {
                throw CaptureError(.unsupportedFormat, "\(descriptor.localizedName) substituted \(applied.format) for \(configuration.format)",
                                   operation: "VIDIOC_S_FMT", deviceID: descriptor.uniqueID, path: node.path)
            }
            ring = try V4L2BufferRing(io: io, bufferType: node.bufferType, count: bufferCount)
        } catch {
            io.close()
            throw error
        }
        do throws(CaptureError) {
            reader = try V4L2FrameReader(ring: ring, format: pixFormat, frameDuration: applied.frameDuration)
            try io.streamOn(bufferType: node.bufferType)
        } catch {
            ring.stop()
            throw error
        }
        previousRing.withLock { $0.ring = ring }
        return V4L2Stream.Capture(ring: ring, reader: reader)
    }
}
