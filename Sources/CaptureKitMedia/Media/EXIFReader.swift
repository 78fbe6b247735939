import CaptureKitCore
internal import CExif

/// Reads what a decoder needs from a file's EXIF block with libexif: today the orientation,
/// so a decoded JPEG can be turned upright as viewers show it.
package enum EXIFReader {
    /// The `Orientation` tag (IFD0) of the EXIF block in a JPEG file's APP1 segment; `.up` when
    /// there is no block, no tag or a value outside 1...8. Wraps exif_data_new_from_data, which
    /// finds the segment among the JPEG markers itself.
    package static func orientation(ofJPEG bytes: UnsafeRawBufferPointer) -> EXIFOrientation {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let data = exif_data_new_from_data(base, UInt32(clamping: bytes.count)) else { return .up }
        defer { exif_data_unref(data) }
        guard let ifd0 = data.pointee.ifd.0, let entry = exif_content_get_entry(ifd0, EXIF_TAG_ORIENTATION),
              entry.pointee.format == EXIF_FORMAT_SHORT, entry.pointee.components >= 1, let value = entry.pointee.data else { return .up }
        return EXIFOrientation(rawValue: Int(exif_get_short(value, exif_data_get_byte_order(data)))) ?? .up
    }
}
