import CaptureKitCore
internal import CExif
import Glibc

/// Builds EXIF blocks with libexif: the TIFF structure (IFD0 + Exif IFD) that JPEG carries in
/// APP1 after `"Exif\0\0"`, PNG in an `eXIf` chunk and HEIF in an `Exif` item.
package enum EXIFWriter {
    /// The bytes that open an APP1 EXIF payload.
    package static let app1Header: [UInt8] = Array("Exif".utf8) + [0, 0]

    /// The APP1 payload: `"Exif\0\0"` followed by the TIFF structure. Wraps exif_data_save_data.
    package static func app1Payload(for metadata: EXIFMetadata) throws(CaptureError) -> [UInt8] {
        guard let mem = exif_mem_new_default() else { throw CaptureError(.outOfMemory, "libexif could not allocate", operation: "exif_mem_new_default") }
        defer { exif_mem_unref(mem) }
        guard let data = exif_data_new_mem(mem) else { throw CaptureError(.outOfMemory, "libexif could not allocate", operation: "exif_data_new_mem") }
        defer { exif_data_unref(data) }
        // "Follow specification" would add and drop tags on its own; the set below is complete.
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        exif_data_set_data_type(data, EXIF_DATA_TYPE_COMPRESSED)
        exif_data_set_byte_order(data, EXIF_BYTE_ORDER_INTEL)

        let builder = Builder(data: data, mem: mem)
        let ifd0 = data.pointee.ifd.0!
        let exif = data.pointee.ifd.2!
        if let make = metadata.make { try builder.ascii(ifd0, EXIF_TAG_MAKE, make) }
        if let model = metadata.model { try builder.ascii(ifd0, EXIF_TAG_MODEL, model) }
        try builder.shorts(ifd0, EXIF_TAG_ORIENTATION, [UInt16(metadata.orientation.rawValue)])
        try builder.rational(ifd0, EXIF_TAG_X_RESOLUTION, 72, 1)
        try builder.rational(ifd0, EXIF_TAG_Y_RESOLUTION, 72, 1)
        try builder.shorts(ifd0, EXIF_TAG_RESOLUTION_UNIT, [2])   // inches
        if let software = metadata.software { try builder.ascii(ifd0, EXIF_TAG_SOFTWARE, software) }
        let dates = metadata.exifDateFields
        if let dates { try builder.ascii(ifd0, EXIF_TAG_DATE_TIME, dates.dateTime) }
        try builder.shorts(ifd0, EXIF_TAG_YCBCR_POSITIONING, [1])  // centred, as JFIF samples chroma

        if let exposure = metadata.exposureTime, exposure > 0, exposure.isFinite {
            let (numerator, denominator) = rational(exposure)
            try builder.rational(exif, EXIF_TAG_EXPOSURE_TIME, numerator, denominator)
        }
        if let iso = metadata.isoSpeed, iso > 0 {
            try builder.shorts(exif, EXIF_TAG_ISO_SPEED_RATINGS, [UInt16(clamping: iso)])
            try builder.shorts(exif, EXIF_TAG_SENSITIVITY_TYPE, [3])   // ISO speed
        }
        try builder.undefined(exif, EXIF_TAG_EXIF_VERSION, Array("0232".utf8))
        if let dates {
            try builder.ascii(exif, EXIF_TAG_DATE_TIME_ORIGINAL, dates.dateTime)
            try builder.ascii(exif, EXIF_TAG_DATE_TIME_DIGITIZED, dates.dateTime)
            try builder.ascii(exif, EXIF_TAG_OFFSET_TIME, dates.offset)
            try builder.ascii(exif, EXIF_TAG_OFFSET_TIME_ORIGINAL, dates.offset)
            try builder.ascii(exif, EXIF_TAG_OFFSET_TIME_DIGITIZED, dates.offset)
        }
        try builder.undefined(exif, EXIF_TAG_COMPONENTS_CONFIGURATION, [1, 2, 3, 0])   // Y Cb Cr
        // 0x20: no flash function; 0x10: flash suppressed (did not fire); 0x01: fired.
        let flash: UInt16 = metadata.flashFired.map { $0 ? 0x01 : 0x10 } ?? 0x20
        try builder.shorts(exif, EXIF_TAG_FLASH, [flash])
        if let dates {
            try builder.ascii(exif, EXIF_TAG_SUB_SEC_TIME, dates.subSeconds)
            try builder.ascii(exif, EXIF_TAG_SUB_SEC_TIME_ORIGINAL, dates.subSeconds)
            try builder.ascii(exif, EXIF_TAG_SUB_SEC_TIME_DIGITIZED, dates.subSeconds)
        }
        try builder.undefined(exif, EXIF_TAG_FLASH_PIX_VERSION, Array("0100".utf8))
        try builder.shorts(exif, EXIF_TAG_COLOR_SPACE, [1])   // sRGB
        try builder.longs(exif, EXIF_TAG_PIXEL_X_DIMENSION, [UInt32(clamping: metadata.pixelWidth)])
        try builder.longs(exif, EXIF_TAG_PIXEL_Y_DIMENSION, [UInt32(clamping: metadata.pixelHeight)])

        var bytes: UnsafeMutablePointer<UInt8>?
        var size: UInt32 = 0
        exif_data_save_data(data, &bytes, &size)
        guard let bytes, size > 0 else {
            throw CaptureError(.internalError, "libexif produced no EXIF block", operation: "exif_data_save_data")
        }
        defer { exif_mem_free(mem, bytes) }
        let payload = Array(UnsafeBufferPointer(start: bytes, count: Int(size)))
        guard payload.starts(with: app1Header) else {
            throw CaptureError(.internalError, "libexif's EXIF block does not start with the Exif header", operation: "exif_data_save_data")
        }
        return payload
    }

    /// The bare TIFF structure (starting `II*\0`), for PNG's `eXIf` chunk and HEIF's Exif item.
    package static func tiff(for metadata: EXIFMetadata) throws(CaptureError) -> [UInt8] {
        Array(try app1Payload(for: metadata).dropFirst(app1Header.count))
    }

    /// `seconds` as an EXIF rational: 1/n for the usual shutter fractions, else microseconds.
    package static func rational(_ seconds: Double) -> (UInt32, UInt32) {
        if seconds < 1 {
            let reciprocal = (1 / seconds).rounded()
            if abs(1 / reciprocal - seconds) < seconds * 1e-6, reciprocal <= Double(UInt32.max) { return (1, UInt32(reciprocal)) }
        }
        var numerator = UInt64((seconds * 1_000_000).rounded())
        var denominator: UInt64 = 1_000_000
        let divisor = MediaTime.gcd(numerator, denominator)
        if divisor > 1 { numerator /= divisor; denominator /= divisor }
        return (UInt32(clamping: numerator), UInt32(clamping: denominator))
    }

    /// Adds entries to the IFDs of one ExifData, allocating through its ExifMem so libexif frees
    /// them with the data.
    private struct Builder {
        let data: UnsafeMutablePointer<ExifData>
        let mem: OpaquePointer

        var order: ExifByteOrder { exif_data_get_byte_order(data) }

        func add(_ ifd: UnsafeMutablePointer<ExifContent>, _ tag: ExifTag, _ format: ExifFormat, components: Int,
                 fill: (UnsafeMutablePointer<UInt8>) -> Void) throws(CaptureError) {
            let size = Int(exif_format_get_size(format)) * components
            guard let entry = exif_entry_new_mem(mem),
                  let storage = exif_mem_alloc(mem, ExifLong(size))?.assumingMemoryBound(to: UInt8.self) else {
                throw CaptureError(.outOfMemory, "libexif could not allocate an entry", operation: "exif_entry_new_mem")
            }
            defer { exif_entry_unref(entry) }
            fill(storage)
            entry.pointee.tag = tag
            entry.pointee.format = format
            entry.pointee.components = UInt(components)
            entry.pointee.data = storage
            entry.pointee.size = UInt32(size)
            exif_content_add_entry(ifd, entry)
        }

        func ascii(_ ifd: UnsafeMutablePointer<ExifContent>, _ tag: ExifTag, _ text: String) throws(CaptureError) {
            // EXIF ASCII is 7-bit; anything else would be misread, so it becomes '?'.
            let bytes = text.unicodeScalars.map { $0.isASCII && $0.value != 0 ? UInt8($0.value) : UInt8(ascii: "?") } + [0]
            try add(ifd, tag, EXIF_FORMAT_ASCII, components: bytes.count) { target in
                target.update(from: bytes, count: bytes.count)
            }
        }

        func undefined(_ ifd: UnsafeMutablePointer<ExifContent>, _ tag: ExifTag, _ bytes: [UInt8]) throws(CaptureError) {
            try add(ifd, tag, EXIF_FORMAT_UNDEFINED, components: bytes.count) { target in
                target.update(from: bytes, count: bytes.count)
            }
        }

        func shorts(_ ifd: UnsafeMutablePointer<ExifContent>, _ tag: ExifTag, _ values: [UInt16]) throws(CaptureError) {
            let order = order
            try add(ifd, tag, EXIF_FORMAT_SHORT, components: values.count) { target in
                for (index, value) in values.enumerated() { exif_set_short(target + index * 2, order, value) }
            }
        }

        func longs(_ ifd: UnsafeMutablePointer<ExifContent>, _ tag: ExifTag, _ values: [UInt32]) throws(CaptureError) {
            let order = order
            try add(ifd, tag, EXIF_FORMAT_LONG, components: values.count) { target in
                for (index, value) in values.enumerated() { exif_set_long(target + index * 4, order, ExifLong(value)) }
            }
        }

        func rational(_ ifd: UnsafeMutablePointer<ExifContent>, _ tag: ExifTag, _ numerator: UInt32, _ denominator: UInt32) throws(CaptureError) {
            let order = order
            try add(ifd, tag, EXIF_FORMAT_RATIONAL, components: 1) { target in
                exif_set_rational(target, order, ExifRational(numerator: ExifLong(numerator), denominator: ExifLong(denominator)))
            }
        }
    }
}
