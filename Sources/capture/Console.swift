import Foundation

/// Where the CLI writes: results to stdout, one-line errors to stderr.
enum Console {
    static func print(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func error(_ line: String) {
        FileHandle.standardError.write(Data(("capture: " + line + "\n").utf8))
    }

    /// Prints a value as pretty JSON with sorted keys.
    static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}

/// Exit statuses, from sysexits.h.
enum ExitStatus: Int32 {
    case success = 0
    case failure = 1
    case usage = 64
    /// EX_DATAERR: an input that is not a media file capture can read (corrupt, unsupported).
    case dataError = 65
    /// EX_NOINPUT: an input that is missing, unreadable or not a file.
    case noInput = 66
    case unavailable = 69
    case cannotCreate = 73
}
