import Foundation

/// Where a ``CaptureTimeLapseOutput`` saves its shots as JPEG photos (with EXIF: capture date
/// and time, camera, size).
///
/// ```swift
/// let intoLibrary = TimeLapsePhotoDestination.library(try MediaLibrary.standard())
/// let intoFolder = TimeLapsePhotoDestination.folder(URL(fileURLWithPath: "greenhouse"))
/// ```
public enum TimeLapsePhotoDestination: Sendable {
    /// Into a media library, as photos dated by their capture time.
    case library(MediaLibrary)
    /// Into an existing, writable folder, one file per shot named by its local capture time
    /// (`2024-06-01_06-00-00.000.jpg`, so names sort by time; an existing file is never
    /// replaced), each written whole before it gets its name.
    case folder(URL)
}
