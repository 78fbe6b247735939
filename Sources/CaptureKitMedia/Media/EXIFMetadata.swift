import CaptureKitCore
import Foundation

/// What a photo's EXIF block says (`AVCapturePhoto.metadata`, typed): how to turn it, who made
/// it, when it was captured and how, and its size.
///
/// ```swift
/// let photo = try await photoOutput.capturePhoto(with: CapturePhotoSettings())
/// print(photo.metadata.orientation, photo.metadata.model ?? "?", photo.metadata.dateTimeOriginal!)
/// ```
public struct EXIFMetadata: Sendable, Hashable {
    /// `Orientation`: how to turn the stored pixels to show them upright.
    public var orientation: EXIFOrientation = .up
    /// `Make`: the camera's manufacturer.
    public var make: String?
    /// `Model`: the camera's name.
    public var model: String?
    /// `Software`: what wrote the file.
    public var software: String?
    /// `DateTimeOriginal` with `SubSecTimeOriginal`: the instant the frame was captured.
    public var dateTimeOriginal: Date?
    /// `OffsetTimeOriginal`: the local time zone's offset from UTC at that instant, in seconds
    /// east; nil means the machine's local offset at that instant.
    public var timeZoneOffset: Int?
    /// `PixelXDimension`: the stored picture's width.
    public var pixelWidth: Int = 0
    /// `PixelYDimension`: the stored picture's height.
    public var pixelHeight: Int = 0
    /// `ExposureTime` in seconds, when the device reports it.
    public var exposureTime: Double?
    /// `ISOSpeedRatings` (the sensor gain as ISO), when the device reports it.
    public var isoSpeed: Int?
    /// `Flash`: whether the flash fired; nil for a device without flash ("no flash function").
    public var flashFired: Bool?

    /// Empty metadata: orientation `.up`, nothing else known.
    public init() {}

    /// The `OffsetTimeOriginal` in effect: the given offset, or the local one at capture.
    package var effectiveTimeZoneOffset: Int {
        if let timeZoneOffset { return timeZoneOffset }
        guard let dateTimeOriginal else { return 0 }
        return TimeZone.current.secondsFromGMT(for: dateTimeOriginal)
    }

    /// The EXIF text fields of ``dateTimeOriginal``: `"YYYY:MM:DD HH:MM:SS"` in local time, the
    /// milliseconds as `"123"`, and the offset as `"+02:00"`; nil without a date.
    package var exifDateFields: (dateTime: String, subSeconds: String, offset: String)? {
        guard let date = dateTimeOriginal else { return nil }
        let offset = effectiveTimeZoneOffset
        // Milliseconds are split off first so rounding never carries into the seconds field.
        let totalMilliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let milliseconds = Int(((totalMilliseconds % 1000) + 1000) % 1000)
        let localSeconds = (totalMilliseconds - Int64(milliseconds)) / 1000 + Int64(offset)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                        from: Date(timeIntervalSince1970: TimeInterval(localSeconds)))
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        let dateTime = String(format: "%04d", c.year ?? 0) + ":" + two(c.month) + ":" + two(c.day) + " "
            + two(c.hour) + ":" + two(c.minute) + ":" + two(c.second)
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset) / 60
        return (dateTime, String(format: "%03d", milliseconds), "\(sign)\(two(magnitude / 60)):\(two(magnitude % 60))")
    }
}
