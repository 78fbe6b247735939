import CaptureKit
import CommandLineSupport
import Foundation
import Glibc

/// The files and folders a command line names, checked before anything runs: a mistake costs
/// no recording and says what it is. An empty word is never "the current folder", a word that
/// starts with `-` is never a file name (write `./-x`), an output never replaces a file unless
/// the command was told to, and an input is a file that can be read without waiting (a FIFO
/// would block forever).
enum CommandPath {
    /// The output file `word` names. `overwrite` is the command's `--overwrite` (nil for a
    /// command that never replaces a file), which lets it replace an existing one.
    static func output(_ word: String, what: String = "OUT", overwrite: Bool? = nil) throws -> URL {
        let url = try named(word, what: what)
        var info = stat()
        if stat(url.path, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFDIR {
                throw CaptureError(.fileError, "\(url.path) is a folder; give a file name (inside it, if you like)", path: url.path)
            }
            if overwrite != true {
                throw CaptureError(.fileError, "\(url.path) already exists; capture never replaces a file"
                                   + (overwrite == nil ? "" : " unless told to (--overwrite)"), path: url.path)
            }
        }
        return url
    }

    /// The input file `word` names: there, readable, and a regular file (or a device).
    static func input(_ word: String, what: String = "FILE") throws -> URL {
        let url = try named(word, what: what)
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            throw InputError(errno == ENOENT ? "\(url.path): no such file" : "\(url.path): \(String(cString: strerror(errno)))")
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: throw InputError("\(url.path) is a folder, not a media file")
        case S_IFIFO: throw InputError("\(url.path) is a FIFO (a named pipe), which capture does not read: give a file")
        case S_IFSOCK: throw InputError("\(url.path) is a socket, not a media file")
        default: break
        }
        guard access(url.path, R_OK) == 0 else { throw InputError("\(url.path): cannot be read (\(String(cString: strerror(errno))))") }
        return url
    }

    /// A folder an option names (`--root DIR`), or nil when the option is absent.
    static func folder(_ arguments: Arguments, _ option: String) throws(UsageError) -> URL? {
        guard let word = arguments.value(option) else { return nil }
        guard !word.isEmpty else { throw UsageError("--\(option) is empty: give a folder (. for this one)") }
        return URL(fileURLWithPath: word)
    }

    /// The media library under the folder `option` names (`--root DIR`), else the user's.
    static func library(_ arguments: Arguments, _ option: String = "root") throws -> MediaLibrary {
        try folder(arguments, option).map { try MediaLibrary(root: $0) } ?? MediaLibrary.standard()
    }

    private static func named(_ word: String, what: String) throws(UsageError) -> URL {
        guard !word.isEmpty else { throw UsageError("\(what) is empty: give a file name") }
        return URL(fileURLWithPath: word)
    }
}

/// An input that is missing, unreadable or not a file: exit status 66 (EX_NOINPUT).
struct InputError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
