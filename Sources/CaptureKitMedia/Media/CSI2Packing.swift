internal import CPhotoKernels
import CaptureKitCore

/// Raw Bayer samples packed as MIPI CSI-2 carries them: 10 bits four samples to five bytes, 12
/// bits two to three (V4L2's `SBGGR10P` `pBAA` … `SRGGB12P` `pRCC`), the raw modes of the sensors
/// on embedded boards. Frames are unpacked into the 10- and 12-bit formats (samples in the low
/// bits of 16-bit words), which every output and the DNG writer take.
package enum CSI2Packing {
    /// The bytes a packed row of `width` samples of `bits` (10 or 12) takes.
    package static func rowBytes(width: Int, bits: Int) -> Int {
        ck_csi2_packed_row_bytes(Int32(clamping: width), Int32(bits))
    }

    /// Unpacks `frame.height` packed rows of `bits` at `source`, `sourceBytesPerRow` apart, into
    /// `frame` (a 10- or 12-bit Bayer buffer of the same size). Wraps `ck_unpack_csi2_bayer`.
    package static func unpack(_ source: UnsafeRawPointer, bytesPerRow sourceBytesPerRow: Int, bits: Int, into frame: PixelBuffer) {
        frame.withUnsafeMutableBytes(ofPlane: 0) { target in
            guard let base = target.baseAddress else { return }
            ck_unpack_csi2_bayer(base.assumingMemoryBound(to: UInt16.self), frame.bytesPerRow(ofPlane: 0),
                                 source.assumingMemoryBound(to: UInt8.self), sourceBytesPerRow,
                                 Int32(clamping: frame.width), Int32(clamping: frame.height), Int32(bits))
        }
    }
}
