import CaptureKitCore
internal import CExif
import Foundation

/// Reads what a decoder or the library needs from a file's EXIF block with libexif: the
/// orientation, so a decoded JPEG can be turned upright as viewers show it, and the capture
/// date, a HEIF photo's creation date.
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

    /// The instant `DateTimeOriginal` names (with `SubSecTimeOriginal` and
    /// `OffsetTimeOriginal`, as ``EXIFWriter`` writes them) in a JPEG file or an APP1 payload
    /// (`"Exif\0\0"` and the TIFF structure); nil without a block or a readable date. Without
    /// an offset the date is local time, as ``EXIFMetadata/timeZoneOffset`` has it.
    package static func dateTimeOriginal(ofEXIF bytes: UnsafeRawBufferPointer) -> Date? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let data = exif_data_new_from_data(base, UInt32(clamping: bytes.count)) else { return nil }
        defer { exif_data_unref(data) }
        guard let exif = data.pointee.ifd.2, let dateTime = text(exif, EXIF_TAG_DATE_TIME_ORIGINAL) else { return nil }
        // "YYYY:MM:DD HH:MM:SS"
        let fields = dateTime.split(whereSeparator: { $0 == ":" || $0 == " " }).compactMap { Int($0) }
        guard fields.count == 6 else { return nil }
        let (year, month, day, hour, minute, second) = (fields[0], fields[1], fields[2], fields[3], fields[4], fields[5])
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard let wallClock = calendar.date(from: components), (1...12).contains(month), (1...31).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        // The wall-clock time read as UTC, less the offset: the offset given, else the local one then.
        let offset = text(exif, EXIF_TAG_OFFSET_TIME_ORIGINAL).flatMap(offsetSeconds)
            ?? TimeZone.current.secondsFromGMT(for: wallClock - TimeInterval(TimeZone.current.secondsFromGMT(for: wallClock)))
        var date = wallClock - TimeInterval(offset)
        if let subSeconds = text(exif, EXIF_TAG_SUB_SEC_TIME_ORIGINAL), !subSeconds.isEmpty,
           subSeconds.allSatisfy({ $0.isASCII && $0.isNumber }), let fraction = Double("0." + subSeconds) {
            date += fraction
        }
        return date
    }

    /// An ASCII entry's text, without its NUL and the spaces EXIF pads with.
    private static func text(_ ifd: UnsafeMutablePointer<ExifContent>, _ tag: ExifTag) -> String? {
        guard let entry = exif_content_get_entry(ifd, tag), entry.pointee.format == EXIF_FORMAT_ASCII,
              let value = entry.pointee.data, entry.pointee.size > 0 else { return nil }
        let bytes = UnsafeBufferPointer(start: value, count: Int(entry.pointee.size)).prefix { $0 != 0 }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }

    /// `"+05:30"` as 19800 seconds east of UTC.
    private static func offsetSeconds(_ text: String) -> Int? {
        let characters = Array(text)
        guard characters.count == 6, characters[0] == "+" || characters[0] == "-", characters[3] == ":",
              let hours = Int(String(characters[1...2])), let minutes = Int(String(characters[4...5])),
              hours <= 14, minutes < 60 else { return nil }
        return (characters[0] == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
    }
}
