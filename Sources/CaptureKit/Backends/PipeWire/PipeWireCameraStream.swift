internal import CPipeWire
import Dispatch
import Foundation
import Synchronization

/// A running capture from one PipeWire camera node: a `pw_stream` (through the shim) whose
/// frames, on its own thread, are copied into pooled buffers (Motion JPEG ones decoded, their
/// JPEG kept beside them as V4L2's are) and stamped with the capture time of the buffer's
/// header (`spa_meta_header.pts`, on the monotonic clock) or, without one, their arrival.
///
/// When the node goes away (a camera unplugged, its daemon's monitor gone), the stream reports
/// `.disconnected`; when a node of the same name is listed again it reopens it with the same
/// format and reports `.reconnected`.
final class PipeWireCameraStream: DeviceStream, @unchecked Sendable {
    // Unchecked Sendable: the C stream pointer is opened and closed under `state`'s lock; frame
    // state is touched only on the stream's own thread.

    /// The shim's stream.
    private struct Handle: @unchecked Sendable {
        // Unchecked Sendable: a C pointer, opened and closed under the state's lock only.
        let pointer: OpaquePointer
    }

    private let backend: PipeWireCameraBackend
    private let provider: PipeWireDeviceProvider
    private let configuration: StreamConfiguration
    private let sink: StreamSink
    private let pool: PixelBufferPool
    /// For a Motion JPEG format: its decoder, and the pool its JPEGs are kept in.
    private let decoder: MJPEGDecoder?
    private let jpegPool: StoragePool?
    private let pixelFormat: PixelFormat
    private let frameDuration: MediaTime
    private let state = Mutex(PipeWireStreamState<Handle>())
    private let streaming = DispatchSemaphore(value: 0)
    /// On the stream's thread only: the next sequence number and the last header sequence.
    private var sequence: UInt64 = 0
    private var lastHeaderSequence: UInt64?

    /// How long PipeWire may take to link the stream to the node and start it.
    static let openTimeout: Duration = .seconds(5)

    init(backend: PipeWireCameraBackend, provider: PipeWireDeviceProvider, configuration: StreamConfiguration, sink: StreamSink) throws(CaptureError) {
        guard let pixelFormat = configuration.format.pixelFormat else {
            throw CaptureError(.unsupportedFormat, "\(configuration.format) is not a PipeWire camera format", deviceID: backend.descriptor.uniqueID)
        }
        self.backend = backend
        self.provider = provider
        self.configuration = configuration
        self.sink = sink
        self.pixelFormat = pixelFormat
        frameDuration = configuration.frameDuration.isNumeric && configuration.frameDuration > .zero
            ? configuration.frameDuration : configuration.format.minFrameDuration
        let width = configuration.format.width, height = configuration.format.height
        pool = try PixelBufferPool(width: width, height: height, pixelFormat: pixelFormat)
        if configuration.format.encoding == .mjpeg {
            decoder = try MJPEGDecoder(width: width, height: height)
            // Room for any JPEG of the frame that a camera sends (they are a tenth of this).
            jpegPool = StoragePool(blockSize: max(width * height * 3, 1 << 16), maximumIdle: 4)
        } else {
            decoder = nil
            jpegPool = nil
        }
        try open()
        provider.watch(backend.nodeName, for: self) { [weak self] present in self?.nodeChanged(present: present) }
    }

    deinit { stop() }

    private var deviceID: String { backend.descriptor.uniqueID }

    /// Opens the C stream and waits until it streams.
    private func open() throws(CaptureError) {
        guard let (serial, request) = backend.request(for: configuration) else {
            throw CaptureError(.unsupportedFormat, "\(backend.descriptor.localizedName) has no format \(configuration.format)", deviceID: deviceID)
        }
        var format = request
        var message = [CChar](repeating: 0, count: 256)
        let user = Unmanaged.passUnretained(self).toOpaque()
        guard let remote = provider.remote else {
            throw CaptureError(.notAuthorized, "\(backend.descriptor.localizedName) is reached through the Camera portal, which has not granted access "
                               + "(CaptureDevice.requestAccess(for: .video))", deviceID: deviceID)
        }
        let handle = try remote.connect { fd in
            ck_pw_stream_open(fd, serial, &format, { user, data, size, stride, pts, sequence, fd in
                guard let user, let data else { return }
                Unmanaged<PipeWireCameraStream>.fromOpaque(user).takeUnretainedValue().frame(data, size: Int(size), stride: Int(stride), pts: pts, headerSequence: sequence)
            }, { user, state, error in
                guard let user else { return }
                Unmanaged<PipeWireCameraStream>.fromOpaque(user).takeUnretainedValue().stateChanged(Int(state), error: error.map { String(cString: $0) })
            }, user, &message, message.count)
        }
        guard let handle else {
            throw CaptureError(.deviceNotFound, "cannot open \(backend.descriptor.localizedName) through PipeWire: \(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))", deviceID: deviceID)
        }
        state.withLock { $0.handle = Handle(pointer: handle) }
        let answered = streaming.wait(timeout: .now() + Self.openTimeout.dispatchInterval) == .success
        let (phase, failure) = state.withLock { ($0.phase, $0.failure) }
        guard answered, phase == .running else {
            // Joins the stream's thread: no callback runs after this.
            if let handle = state.withLock({ $0.abandonOpening() }) { ck_pw_stream_close(handle.pointer) }
            let why = failure ?? "PipeWire did not start it within \(Self.openTimeout) (is a session manager such as WirePlumber running?)"
            throw CaptureError(.deviceNotFound, "cannot capture from \(backend.descriptor.localizedName) through PipeWire: \(why)", deviceID: deviceID)
        }
    }

    func stop() {
        provider.unwatch(self)
        // Joins the stream's thread: no callback runs after this.
        if let handle = state.withLock({ $0.stop() }) { ck_pw_stream_close(handle.pointer) }
    }

    /// The node went (false) or is listed again (true), on a PipeWire or discovery thread.
    private func nodeChanged(present: Bool) {
        if !present {
            guard let handle = state.withLock({ $0.lose() }) else { return }
            ck_pw_stream_close(handle.pointer)
            sink.event(.disconnected)
            return
        }
        guard state.withLock({ $0.reopen() }) else { return }
        do throws(CaptureError) {
            try open()
            sink.event(.reconnected)
        } catch {
            // open() left it lost (another listing may try again) unless it was stopped.
            if state.withLock({ $0.phase != .stopped }) { sink.event(.cannotResume(error)) }
        }
    }

    // MARK: The stream's thread

    private func stateChanged(_ value: Int, error: String?) {
        // A node that goes is seen by the provider's monitor (nodeChanged), not here.
        if state.withLock({ $0.streamStateChanged(value, error: error) }) { streaming.signal() }
    }

    private func frame(_ data: UnsafePointer<UInt8>, size: Int, stride: Int, pts: Int64, headerSequence: UInt64) {
        guard state.withLock({ $0.phase == .running }) else { return }
        let now = MonotonicClock.nanoseconds()
        // The header's time is the capture time on CLOCK_MONOTONIC (V4L2's buffer time, a test
        // source's clock); anything else is not a time of this clock.
        let captured = pts > 0 && abs(now - pts) < 5_000_000_000 && pts <= now ? pts : now
        if let last = lastHeaderSequence, headerSequence > last + 1 {
            let skipped = Int(headerSequence - last - 1)
            sequence += UInt64(skipped)
            sink.event(.droppedFrames(count: skipped))
        }
        lastHeaderSequence = headerSequence
        let buffer: PixelBuffer
        var compressed: CompressedFrame?
        if let decoder, let jpegPool {
            let jpeg = UnsafeRawBufferPointer(start: data, count: size)
            do {
                buffer = try decoder.decode(jpeg)
                let storage = try jpegPool.take()
                guard size <= storage.byteCount else { throw CaptureError.internalError("a \(size)-byte JPEG") }
                storage.bytes.copyMemory(from: data, byteCount: size)
                compressed = CompressedFrame(codec: .jpeg, storage: storage, byteCount: size)
            } catch {
                // A damaged or oversized JPEG is a lost frame, counted as one.
                sink.event(.droppedFrames(count: 1))
                return
            }
        } else {
            guard let copied = try? pool.makeBuffer(), copy(data, size: size, stride: stride, into: copied) else {
                sink.event(.droppedFrames(count: 1))
                return
            }
            buffer = copied
        }
        let sample = SampleBuffer(media: .video(buffer), presentationTimeStamp: MediaTime(value: captured, timescale: 1_000_000_000),
                                  duration: frameDuration, sequenceNumber: sequence, compressedFrame: compressed)
        sequence += 1
        sink.deliver(sample)
    }

    /// Copies a frame whose planes follow one another in one block (`stride` is the first
    /// plane's) into `buffer`; false when the block is too short for the format.
    private func copy(_ data: UnsafePointer<UInt8>, size: Int, stride: Int, into buffer: PixelBuffer) -> Bool {
        let firstRow = pixelFormat.minimumBytesPerRow(plane: 0, width: buffer.width)
        let sourceStride = stride > 0 ? stride : firstRow
        var offset = 0
        for plane in 0..<buffer.planeCount {
            let rowBytes = pixelFormat.minimumBytesPerRow(plane: plane, width: buffer.width)
            let planeStride = sourceStride * rowBytes / max(1, firstRow)
            let rows = buffer.rowCount(ofPlane: plane)
            guard offset + planeStride * (rows - 1) + rowBytes <= size else { return false }
            let targetStride = buffer.bytesPerRow(ofPlane: plane)
            buffer.withUnsafeMutableBytes(ofPlane: plane) { target in
                guard let base = target.baseAddress else { return }
                for row in 0..<rows {
                    (base + row * targetStride).copyMemory(from: data + offset + row * planeStride, byteCount: rowBytes)
                }
            }
            offset += planeStride * rows
        }
        return true
    }
}
