import Foundation

/// Where capture-bench writes: results to stdout, one-line errors to stderr.
enum Console {
    static func print(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ line: String) {
        // One line per error, so scripts can grep it and logs stay readable.
        let single = line.split(whereSeparator: \.isNewline).joined(separator: " ")
        FileHandle.standardError.write(Data(("capture-bench: " + single + "\n").utf8))
    }

    /// Prints a value as pretty JSON with sorted keys.
    static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
