import Foundation

/// Counts the packets of each track of a movie with `ffprobe -count_packets`, so every row is
/// credited with the frames it actually wrote, not the frames it was given.
enum RecordProbe {
    /// Packets per track type; zero for a track that is missing.
    struct Counts: Sendable, Equatable {
        var video = 0
        var audio = 0
    }

    /// The counts of the file at `path`; throws when ffprobe fails or cannot read the file.
    static func count(_ path: String, ffprobe: String) throws -> Counts {
        let output = try run(ffprobe, ["-count_packets", "-show_entries", "stream=codec_type,nb_read_packets", "-of", "csv=p=0"], path)
        var counts = Counts()
        // One "codec_type,nb_read_packets" line per stream.
        for line in output.split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: ",")
            guard fields.count >= 2, let packets = Int(fields[1]) else { continue }
            switch fields[0] {
            case "video": counts.video += packets
            case "audio": counts.audio += packets
            default: break
            }
        }
        return counts
    }

    /// What `ffprobe -v error ARGUMENTS path` prints; throws when it fails or cannot read the file.
    static func run(_ ffprobe: String, _ arguments: [String], _ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffprobe)
        process.arguments = ["-v", "error"] + arguments + [path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw BenchError("cannot start ffprobe: \(error)")
        }
        // Read before waiting: a full pipe would otherwise block ffprobe forever.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError("ffprobe cannot read \(path) (status \(process.terminationStatus))")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
