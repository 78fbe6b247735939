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
        if undecodedBytes(of: word) != nil {
            // The library writes through paths, which are Swift strings: a name that is not
            // UTF-8 would come out with U+FFFD in place of its bytes.
            throw UsageError("\(what) '\(word)' is not valid UTF-8: give a name in UTF-8")
        }
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

    /// The input file `word` names: there, readable, and a regular file (or a device). A name
    /// that is not UTF-8 (which a Swift string cannot hold) is opened by its bytes and read
    /// through `/proc/self/fd/N`, so FFmpeg and the library open that same file.
    static func input(_ word: String, what: String = "FILE") throws -> URL {
        let url: URL
        let name: String
        if let bytes = undecodedBytes(of: word) {
            url = try opened(bytes, shown: word)
            name = word
        } else {
            url = try named(word, what: what)
            name = url.path
        }
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            throw InputError(errno == ENOENT ? "\(name): no such file" : "\(name): \(String(cString: strerror(errno)))")
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: throw InputError("\(name) is a folder, not a media file")
        case S_IFIFO: throw InputError("\(name) is a FIFO (a named pipe), which capture does not read: give a file")
        case S_IFSOCK: throw InputError("\(name) is a socket, not a media file")
        default: break
        }
        guard access(url.path, R_OK) == 0 else { throw InputError("\(name): cannot be read (\(String(cString: strerror(errno))))") }
        return url
    }

    /// The words of the command line that are not UTF-8, as Swift shows them (each bad byte a
    /// U+FFFD) and as they were given.
    private static let undecodedWords: [(shown: String, bytes: [UInt8])] = (1..<Int(CommandLine.argc)).compactMap { index in
        guard let word = CommandLine.unsafeArgv[index] else { return nil }
        let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(word).assumingMemoryBound(to: UInt8.self), count: strlen(word)))
        guard String(validating: bytes, as: UTF8.self) == nil else { return nil }
        return (String(decoding: bytes, as: UTF8.self), bytes)
    }

    /// The bytes `word` stands for when it is (the end of) a command-line word that is not
    /// UTF-8 — the whole word, or what follows an ASCII prefix such as `file:`.
    private static func undecodedBytes(of word: String) -> [UInt8]? {
        guard word.contains("\u{FFFD}") else { return nil }
        for candidate in undecodedWords where candidate.shown.hasSuffix(word) {
            let prefix = candidate.shown.dropLast(word.count)
            guard prefix.allSatisfy(\.isASCII) else { continue }
            return Array(candidate.bytes.dropFirst(prefix.utf8.count))
        }
        return nil
    }

    /// Opens the file named by `bytes` (without blocking on a FIFO) and keeps it open for the
    /// process's life; its `/proc/self/fd` path names it from then on.
    private static func opened(_ bytes: [UInt8], shown: String) throws -> URL {
        let descriptor = (bytes + [0]).withUnsafeBufferPointer { path in
            path.baseAddress!.withMemoryRebound(to: CChar.self, capacity: path.count) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        }
        guard descriptor >= 0 else {
            throw InputError(errno == ENOENT ? "\(shown): no such file" : "\(shown): \(String(cString: strerror(errno)))")
        }
        return URL(fileURLWithPath: "/proc/self/fd/\(descriptor)")
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
