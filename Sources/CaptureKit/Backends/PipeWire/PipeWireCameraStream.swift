internal import CPipeWire
import Dispatch
import Foundation
import Synchronization

/// A running capture from one PipeWire camera node: a `pw_stream` (through the shim) whose
/// frames, on its own thread, are lent by reference from the buffers PipeWire shares with it
/// (shared memory or DMA-BUF, mapped by the shim, a DMA-BUF attached) when the node is one the
/// daemon made and while enough buffers stay in circulation, else copied into pooled buffers
/// (Motion JPEG ones decoded, their JPEG kept beside them as V4L2's are), and stamped with the
/// capture time of the buffer's header (`spa_meta_header.pts`, on the monotonic clock) or,
/// without one, their arrival.
///
/// When the node goes away (a camera unplugged, its daemon's monitor gone), the stream reports
/// `.disconnected`; when a node of the same name is listed again it reopens it with the same
/// format and reports `.reconnected`.
final class PipeWireCameraStream: DeviceStream, @unchecked Sendable {
    // Unchecked Sendable: the C stream pointer is opened and closed under `state`'s lock; frame
    // state is touched only on the stream's own thread (one stream open at a time).

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
    /// On the stream's thread only: where the planes lie for the last stride a frame gave (it is
    /// fixed for a format), and the bytes they span, so a frame allocates no plane list of its own.
    private var layout: (stride: Int, planes: [PixelBuffer.Plane], span: Int)?

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
        guard let (serial, request, lends) = backend.request(for: configuration) else {
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
            ck_pw_stream_open(fd, serial, &format, lends ? 1 : 0, { user, frame in
                guard let user, let frame else { return 0 }
                return Unmanaged<PipeWireCameraStream>.fromOpaque(user).takeUnretainedValue().frame(frame.pointee) ? 1 : 0
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

    /// Makes a sample of `frame`; true when it kept the frame's buffer (lent by reference).
    private func frame(_ frame: ck_pw_frame_info) -> Bool {
        guard state.withLock({ $0.phase == .running }), let data = frame.data else { return false }
        let size = Int(frame.size)
        let now = MonotonicClock.nanoseconds()
        // The header's time is the capture time on CLOCK_MONOTONIC (V4L2's buffer time, a test
        // source's clock); anything else is not a time of this clock.
        let pts = frame.pts_ns
        let captured = pts > 0 && abs(now - pts) < 5_000_000_000 && pts <= now ? pts : now
        if let last = lastHeaderSequence, frame.sequence > last + 1 {
            let skipped = Int(frame.sequence - last - 1)
            sequence += UInt64(skipped)
            sink.event(.droppedFrames(count: skipped))
        }
        lastHeaderSequence = frame.sequence
        let buffer: PixelBuffer
        var compressed: CompressedFrame?
        var kept = false
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
                return false
            }
        } else {
            guard let planes = planes(size: size, stride: Int(frame.stride)) else {
                sink.event(.droppedFrames(count: 1))
                return false
            }
            if let lendable = frame.lendable {
                let storage = MediaStorage(lentBy: PipeWireFrameLender.shared, tag: Int(bitPattern: lendable),
                                           bytes: UnsafeMutableRawPointer(mutating: data), byteCount: size)
                let dma = frame.dmabuf_fd >= 0
                    ? DMABuffer(fileDescriptor: frame.dmabuf_fd, length: Int(frame.dmabuf_length),
                                planes: planes.map { DMABuffer.Plane(offset: Int(frame.dmabuf_offset) + $0.offset, bytesPerRow: $0.bytesPerRow,
                                                                     length: $0.bytesPerRow * $0.rowCount) })
                    : nil
                buffer = PixelBuffer(width: pool.width, height: pool.height, pixelFormat: pixelFormat, planes: planes, storage: storage, dmaBuffer: dma)
                kept = true
            } else {
                guard let copied = try? pool.makeBuffer() else {
                    sink.event(.droppedFrames(count: 1))
                    return false
                }
                copy(data, planes: planes, into: copied)
                buffer = copied
            }
        }
        let sample = SampleBuffer(media: .video(buffer), presentationTimeStamp: MediaTime(value: captured, timescale: 1_000_000_000),
                                  duration: frameDuration, sequenceNumber: sequence, compressedFrame: compressed)
        sequence += 1
        sink.deliver(sample)
        return kept
    }

    /// Where the planes of a frame lie in a block of `size` bytes whose planes follow one another
    /// (`stride` is the first plane's, 0 when the producer gives none), or nil when the block is
    /// too short for the format.
    private func planes(size: Int, stride: Int) -> [PixelBuffer.Plane]? {
        if layout?.stride != stride {
            let firstRow = pixelFormat.minimumBytesPerRow(plane: 0, width: pool.width)
            let sourceStride = stride > 0 ? stride : firstRow
            var offset = 0, span = 0
            var planes: [PixelBuffer.Plane] = []
            for plane in 0..<pixelFormat.planeCount {
                let rowBytes = pixelFormat.minimumBytesPerRow(plane: plane, width: pool.width)
                let planeStride = sourceStride * rowBytes / max(1, firstRow)
                let rows = pixelFormat.rowCount(plane: plane, height: pool.height)
                guard planeStride >= rowBytes else { return nil }
                planes.append(PixelBuffer.Plane(offset: offset, bytesPerRow: planeStride, rowCount: rows))
                span = offset + planeStride * (rows - 1) + rowBytes
                offset += planeStride * rows
            }
            layout = (stride, planes, span)
        }
        guard let layout, layout.span <= size else { return nil }
        return layout.planes
    }

    /// Copies the frame at `data` laid out as `planes` into `buffer`'s rows.
    private func copy(_ data: UnsafePointer<UInt8>, planes: [PixelBuffer.Plane], into buffer: PixelBuffer) {
        for (index, plane) in planes.enumerated() {
            let rowBytes = pixelFormat.minimumBytesPerRow(plane: index, width: buffer.width)
            let targetStride = buffer.bytesPerRow(ofPlane: index)
            buffer.withUnsafeMutableBytes(ofPlane: index) { target in
                guard let base = target.baseAddress else { return }
                for row in 0..<plane.rowCount {
                    (base + row * targetStride).copyMemory(from: data + plane.offset + row * plane.bytesPerRow, byteCount: rowBytes)
                }
            }
        }
    }
}
