import Foundation

/// Where a CaptureKit command-line tool writes: results to stdout, errors to stderr as one
/// line each, prefixed with the program's name (`capture: …`), so scripts can grep them.
public enum Console {
    /// Writes `line` and a newline to standard output.
    public static func print(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Writes `line` to standard error on one line (newlines become spaces), after the
    /// program's name.
    public static func error(_ line: String) {
        let single = line.split(whereSeparator: \.isNewline).joined(separator: " ")
        FileHandle.standardError.write(Data((programName + ": " + single + "\n").utf8))
    }

    /// Prints a value as pretty JSON with sorted keys.
    public static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// The name the program was started by, without its directory.
    public static var programName: String {
        URL(fileURLWithPath: CommandLine.arguments.first ?? "capture").lastPathComponent
    }
}
