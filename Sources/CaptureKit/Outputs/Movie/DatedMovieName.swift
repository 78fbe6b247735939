import Foundation

/// The name of a movie that event recordings start by themselves (clips, motion recordings):
/// `<prefix>-YYYYMMDD-HHMMSS.mov` in `folder` for now, with `-2`, `-3`… when taken, so that
/// names sort by time and no file is ever replaced.
package enum DatedMovieName {
    /// The first free name for a movie starting now.
    package static func next(in folder: URL, prefix: String) -> URL {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let stem = "\(prefix)-\(formatter.string(from: Date()))"
        var url = folder.appendingPathComponent("\(stem).mov")
        var number = 1
        while FileManager.default.fileExists(atPath: url.path) {
            number += 1
            url = folder.appendingPathComponent("\(stem)-\(number).mov")
        }
        return url
    }
}
