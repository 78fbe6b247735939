import Foundation
import Glibc

/// A file opened to answer one request: its descriptor, its size, and the bytes the request's
/// `Range` selects (nil when it selects none, a 416, and then no descriptor is held). The
/// descriptor is handed to libmicrohttpd, which sends from it and closes it.
struct FileAnswer {
    let descriptor: Int32
    let size: Int
    let part: HTTPByteRange?

    /// Opens `url` for reading; nil when it cannot be (gone, unreadable, not a file).
    /// Wraps open(2) and fstat(2).
    init?(url: URL, range: String?) {
        var opened: Int32
        repeat { opened = open(url.path, O_RDONLY | O_CLOEXEC) } while opened < 0 && errno == EINTR
        guard opened >= 0 else { return nil }
        var info = stat()
        guard fstat(opened, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(opened)
            return nil
        }
        size = Int(info.st_size)
        switch HTTPByteRange.select(range, size: size) {
        case .whole: part = HTTPByteRange(start: 0, count: size)
        case .part(let range): part = range
        case .unsatisfiable: part = nil
        }
        if part == nil { close(opened) }
        descriptor = part == nil ? -1 : opened
    }
}
