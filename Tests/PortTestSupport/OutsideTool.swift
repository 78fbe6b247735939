import Foundation

/// A tool nobody here wrote (ffprobe, exiftool), run on a file CaptureKit made; shared by the
/// ported samples' tests.
public struct OutsideTool: Error, CustomStringConvertible {
    /// The command and what it said.
    public let description: String

    /// Runs `tool` (looked up on PATH) and returns what it printed as JSON; throws with its
    /// standard error when it fails.
    public static func json(_ tool: String, _ arguments: [String]) throws -> Any {
        let process = Process()
        let output = Pipe(), errors = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Standard output is read to its end before waiting, so a long answer cannot fill the
        // pipe and stall the tool; these tools say little on standard error.
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw OutsideTool(description: "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(complaint)")
        }
        return try JSONSerialization.jsonObject(with: printed)
    }

    /// ffprobe's streams and format of `file` (`-show_streams -show_format`).
    public static func probe(_ file: URL) throws -> (streams: [[String: Any]], format: [String: Any]) {
        let json = try Self.json("ffprobe", ["-v", "error", "-show_streams", "-show_format", "-of", "json", file.path]) as? [String: Any]
        return (json?["streams"] as? [[String: Any]] ?? [], json?["format"] as? [String: Any] ?? [:])
    }

    /// exiftool's reading of `file` (`-j -n`: numbers as numbers).
    public static func exif(_ file: URL) throws -> [String: Any] {
        (try Self.json("exiftool", ["-j", "-n", file.path]) as? [[String: Any]])?.first ?? [:]
    }
}
