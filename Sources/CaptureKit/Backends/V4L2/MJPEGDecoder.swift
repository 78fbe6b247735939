internal import CTurboJPEG

/// Decodes one Motion-JPEG frame at a time to RGB with libjpeg-turbo, into pooled buffers.
/// Used by one stream thread only. Damaged frames (truncated, garbage, a size other than the
/// stream's) are refused with an error so the stream drops and counts them instead of
/// delivering a half-grey picture.
final class MJPEGDecoder {
    private var handle: tjhandle
    private let pool: PixelBufferPool
    let width: Int
    let height: Int

    /// A decoder for `width`×`height` frames. Wraps tjInitDecompress.
    init(width: Int, height: Int) throws(CaptureError) {
        guard let handle = tjInitDecompress() else {
            throw CaptureError(.outOfMemory, "cannot create a JPEG decoder", operation: "tjInitDecompress")
        }
        do {
            pool = try PixelBufferPool(width: width, height: height, pixelFormat: .rgb24, maximumIdleBuffers: 4)
        } catch {
            tjDestroy(handle)
            throw error
        }
        self.handle = handle
        self.width = width
        self.height = height
    }

    deinit { tjDestroy(handle) }

    /// The frame in `bytes`, decoded. Wraps tjDecompressHeader3 and tjDecompress2; warnings
    /// (such as "premature end of JPEG file") count as damage.
    func decode(_ bytes: UnsafeRawBufferPointer) throws(CaptureError) -> PixelBuffer {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 4 else {
            throw CaptureError(.conversionFailed, "empty MJPEG frame", operation: "tjDecompressHeader3")
        }
        var frameWidth: Int32 = 0
        var frameHeight: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        guard tjDecompressHeader3(handle, base, UInt(bytes.count), &frameWidth, &frameHeight, &subsampling, &colorspace) == 0 else {
            throw failure("tjDecompressHeader3")
        }
        guard Int(frameWidth) == width, Int(frameHeight) == height else {
            throw CaptureError(.conversionFailed, "MJPEG frame is \(frameWidth)x\(frameHeight), the stream is \(width)x\(height)",
                               operation: "tjDecompressHeader3")
        }
        let frame = try pool.makeBuffer()
        let stride = frame.bytesPerRow(ofPlane: 0)
        let result = frame.withUnsafeMutableBytes(ofPlane: 0) { pixels in
            tjDecompress2(handle, base, UInt(bytes.count), pixels.baseAddress?.assumingMemoryBound(to: UInt8.self),
                          frameWidth, Int32(stride), frameHeight, Int32(TJPF_RGB.rawValue), TJFLAG_STOPONWARNING)
        }
        guard result == 0 else { throw failure("tjDecompress2") }
        return frame
    }

    /// The error for a damaged frame. The handle is replaced: libjpeg-turbo 2.1 leaves a handle
    /// whose header read failed unable to read the next header ("missing SOS marker").
    private func failure(_ operation: String) -> CaptureError {
        let reason = String(cString: tjGetErrorStr2(handle))
        if let fresh = tjInitDecompress() {
            tjDestroy(handle)
            handle = fresh
        }
        return CaptureError(.conversionFailed, "corrupt MJPEG frame: \(reason)", operation: operation)
    }
}
