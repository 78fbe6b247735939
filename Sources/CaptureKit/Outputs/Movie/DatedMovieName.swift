import Foundation

/// The name of a movie that event recordings start by themselves (clips, motion recordings,
/// segments): `<prefix>-YYYYMMDD-HHMMSS.<extension>` in `folder` (local time), with `-2`,
/// `-3`… when taken, so that names sort by time and no file is ever replaced.
package enum DatedMovieName {
    /// The first free name for a movie starting at `date`.
    package static func next(in folder: URL, prefix: String, date: Date = Date(), extension ext: String = "mov") -> URL {
        let stem = "\(prefix)-\(formatter().string(from: date))"
        var url = folder.appendingPathComponent("\(stem).\(ext)")
        var number = 1
        while FileManager.default.fileExists(atPath: url.path) {
            number += 1
            url = folder.appendingPathComponent("\(stem)-\(number).\(ext)")
        }
        return url
    }

    /// The time a name made by ``next(in:prefix:date:extension:)`` says, to the second; nil for
    /// other names.
    package static func date(of url: URL, prefix: String) -> Date? {
        let name = url.deletingPathExtension().lastPathComponent
        guard name.hasPrefix(prefix + "-") else { return nil }
        return formatter().date(from: String(name.dropFirst(prefix.count + 1).prefix(15)))
    }

    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return formatter
    }
}
