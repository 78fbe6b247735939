import CaptureKitCore
import CaptureKitMedia
import Foundation
import Glibc

extension MediaLibrary {
    /// The start of every temporary file's name: hidden, and never a name the library keeps.
    package static let temporaryPrefix = ".capturekit-tmp-"

    /// Extensions of the files the library writes (and reconciliation may index).
    package static let fileExtensions: Set<String> = Set(MediaLibraryImageFormat.allCases.flatMap(\.fileExtensions))
        .union(["mov", "mp4", "m4v", "mkv", "webm", "avi"])

    /// The temporary name of a file being written (or being deleted) as asset `id`.
    package static func temporaryName(id: String, fileExtension: String) -> String {
        temporaryPrefix + id + "." + fileExtension
    }

    /// The name of asset `id` created at `date`: `yyyyMMdd-HHmmss-<UUID>.<ext>` in local time,
    /// so that a file manager sorts the folder by date.
    package static func fileName(id: String, date: Date, fileExtension: String) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        localtime_r(&seconds, &parts)
        func digits(_ value: Int32, _ count: Int) -> String {
            let text = String(max(value, 0))
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        let stamp = digits(parts.tm_year + 1900, 4) + digits(parts.tm_mon + 1, 2) + digits(parts.tm_mday, 2) + "-"
            + digits(parts.tm_hour, 2) + digits(parts.tm_min, 2) + digits(parts.tm_sec, 2)
        return "\(stamp)-\(id).\(fileExtension)"
    }

    /// The asset id in a name the library made (``fileName(id:date:fileExtension:)``), nil for
    /// any other name.
    package static func id(fromFileName name: String) -> String? {
        guard !name.hasPrefix("."), let dot = name.lastIndex(of: ".") else { return nil }
        let stem = name[..<dot]
        guard fileExtensions.contains(String(name[name.index(after: dot)...])), stem.count > 37 else { return nil }
        let uuid = stem.suffix(36)
        guard stem.dropLast(36).hasSuffix("-"), let id = UUID(uuidString: String(uuid)) else { return nil }
        return id.uuidString == uuid ? id.uuidString : nil
    }
}
