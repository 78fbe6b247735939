import Foundation
import Glibc

/// Saves a time-lapse shot as a JPEG photo: the photo output's encoder (libjpeg-turbo, reading
/// the camera's layout directly) and EXIF block (capture date and zone, camera, size), into a
/// media library or a folder. Runs on the time-lapse's worker thread.
struct TimeLapsePhotoWriter: Sendable {
    let destination: TimeLapsePhotoDestination
    /// JPEG quality, 1...100.
    let quality: Int
    let make: String?
    let model: String?
    let timeZone: TimeZone

    /// Checks the destination before the time-lapse starts: a folder that exists, is a folder
    /// and can be written (`.fileError` otherwise).
    func check() throws(CaptureError) {
        guard case .folder(let url) = destination else { return }
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            throw CaptureError(.fileError, "the time-lapse folder \(url.path) does not exist", errno: errno, operation: "stat", path: url.path)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw CaptureError(.fileError, "\(url.path) is not a folder; time-lapse photos go into a folder", path: url.path)
        }
        guard access(url.path, W_OK | X_OK) == 0 else {
            throw CaptureError(.fileError, "the time-lapse folder \(url.path) cannot be written (\(String(cString: strerror(errno))))",
                               errno: errno, operation: "access", path: url.path)
        }
    }

    /// Encodes `sample`'s frame, captured at `date`, and saves it; returns the photo's file and
    /// its library entry. `.diskFull` / `.fileError` when it cannot be written (nothing is left).
    func save(_ sample: SampleBuffer, date: Date) throws(CaptureError) -> (url: URL, asset: MediaAsset?) {
        guard let frame = sample.pixelBuffer else { throw .internalError("a time-lapse shot was given an audio sample") }
        var metadata = EXIFMetadata()
        metadata.make = make
        metadata.model = model
        metadata.software = "CaptureKit"
        metadata.dateTimeOriginal = date
        metadata.timeZoneOffset = timeZone.secondsFromGMT(for: date)
        metadata.pixelWidth = frame.width
        metadata.pixelHeight = frame.height
        let data = try JPEGEncoder.encode(frame, quality: quality, metadata: metadata)
        switch destination {
        case .library(let library):
            let asset = try library.saveImage(data, fileExtension: "jpg", creationDate: date)
            return (asset.fileURL, asset)
        case .folder(let folder):
            return (try write(data, into: folder, date: date), nil)
        }
    }

    /// Writes the photo under a temporary name, syncs it, then links it to the first free name
    /// for its time: a crash leaves no half photo under a photo's name, and no file is replaced.
    private func write(_ data: Data, into folder: URL, date: Date) throws(CaptureError) -> URL {
        let name = Self.name(for: date, in: timeZone)
        let temporary = folder.appendingPathComponent(".\(name).\(getpid()).partial").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.fileError("open", "cannot create a photo in \(folder.path)", path: temporary) }
        defer { unlink(temporary) }
        let written = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
            var done = 0
            while done < raw.count {
                let count = Glibc.write(descriptor, raw.baseAddress! + done, raw.count - done)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { return false }
                done += count
            }
            return true
        }
        guard written, fsync(descriptor) == 0 else {
            let error = Self.fileError("write", "cannot write the photo", path: temporary)
            close(descriptor)
            throw error
        }
        guard close(descriptor) == 0 else { throw Self.fileError("close", "cannot write the photo", path: temporary) }
        for attempt in 1...1000 {
            let url = folder.appendingPathComponent(attempt == 1 ? "\(name).jpg" : "\(name)_\(attempt).jpg")
            if link(temporary, url.path) == 0 { return url }
            guard errno == EEXIST else { throw Self.fileError("link", "cannot name the photo", path: url.path) }
        }
        throw CaptureError(.fileError, "every name for the photo of \(name) is taken in \(folder.path)", path: folder.path)
    }

    /// `2024-06-01_06-00-00.000`: the local capture time, to the millisecond.
    static func name(for date: Date, in zone: TimeZone) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let local = Date(timeIntervalSince1970: Double(seconds))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: local)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        let fraction = String(format: "%03d", Int(milliseconds - seconds * 1000))
        return String(format: "%04d", c.year ?? 0) + "-\(two(c.month))-\(two(c.day))_\(two(c.hour))-\(two(c.minute))-\(two(c.second)).\(fraction)"
    }

    /// The error for the failed call `operation`, from `errno`: `.diskFull` for a full disk or
    /// quota, else `.fileError`.
    private static func fileError(_ operation: String, _ what: String, path: String) -> CaptureError {
        let number = errno
        return CaptureError([ENOSPC, EDQUOT, EFBIG].contains(number) ? .diskFull : .fileError, "\(what): \(String(cString: strerror(number)))",
                            errno: number, operation: operation, path: path)
    }
}
