import CaptureKitCore
internal import CTurboJPEG

/// The one JPEG decoder: libjpeg-turbo's TurboJPEG API, decoding into RGB or BGRA buffers.
/// The V4L2 Motion-JPEG reader decodes frame after frame with one; ``CaptureImage`` decodes
/// stills and files with another. Damaged data (truncated, garbage) is refused rather than
/// decoded to a half-grey picture. Used by one thread at a time.
package final class JPEGDecoder {
    private var handle: tjhandle
    private let damage: CaptureError.Code
    private let subject: String

    /// A decoder whose damaged input throws `damage`, naming the input `subject` ("MJPEG frame").
    /// Wraps tjInitDecompress.
    package init(damage: CaptureError.Code, subject: String) throws(CaptureError) {
        guard let handle = tjInitDecompress() else {
            throw CaptureError(.outOfMemory, "cannot create a JPEG decoder", operation: "tjInitDecompress")
        }
        self.handle = handle
        self.damage = damage
        self.subject = subject
    }

    deinit { tjDestroy(handle) }

    /// The picture's size as stored, from its header. Wraps tjDecompressHeader3.
    package func size(of bytes: UnsafeRawBufferPointer) throws(CaptureError) -> VideoDimensions {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 4 else {
            throw CaptureError(damage, "empty \(subject)", operation: "tjDecompressHeader3")
        }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        guard tjDecompressHeader3(handle, base, UInt(bytes.count), &width, &height, &subsampling, &colorspace) == 0 else {
            throw failure("tjDecompressHeader3")
        }
        return VideoDimensions(width: Int(width), height: Int(height))
    }

    /// Decodes `bytes` into `frame`, which must be `.rgb24` or `.bgra` and of the picture's
    /// size (``size(of:)``). Wraps tjDecompress2; warnings (such as "premature end of JPEG
    /// file") count as damage.
    package func decode(_ bytes: UnsafeRawBufferPointer, into frame: PixelBuffer) throws(CaptureError) {
        let size = try size(of: bytes)
        guard size.width == frame.width, size.height == frame.height else {
            throw CaptureError(damage, "\(subject) is \(size), expected \(frame.width)x\(frame.height)", operation: "tjDecompressHeader3")
        }
        guard let format = frame.pixelFormat == .bgra ? TJPF_BGRA : frame.pixelFormat == .rgb24 ? TJPF_RGB : nil,
              let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw .internalError("JPEG decodes to rgb24 or bgra, not \(frame.pixelFormat)")
        }
        let stride = frame.bytesPerRow(ofPlane: 0)
        let result = frame.withUnsafeMutableBytes(ofPlane: 0) { pixels in
            tjDecompress2(handle, base, UInt(bytes.count), pixels.baseAddress?.assumingMemoryBound(to: UInt8.self),
                          Int32(size.width), Int32(stride), Int32(size.height), Int32(format.rawValue), TJFLAG_STOPONWARNING)
        }
        guard result == 0 else { throw failure("tjDecompress2") }
    }

    /// The error for damaged data. The handle is replaced: libjpeg-turbo 2.1 leaves a handle
    /// whose header read failed unable to read the next header ("missing SOS marker").
    private func failure(_ operation: String) -> CaptureError {
        let reason = String(cString: tjGetErrorStr2(handle))
        if let fresh = tjInitDecompress() {
            tjDestroy(handle)
            handle = fresh
        }
        return CaptureError(damage, "corrupt \(subject): \(reason)", operation: operation)
    }
}
