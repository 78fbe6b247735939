import CaptureKit
import CommandLineSupport
import Foundation

/// `capture probe FILE|URL`: what a media file holds, or a live stream sends, like `ffprobe`.
enum ProbeCommand: Command {
    static let name = "probe"
    static let summary = "describe a media file or a live stream: container, duration, streams, rotation, tags"
    /// What the command accepts; also the option lines of ``usage``.
    static let options: [CommandOption] = [
        .flag("json", "print it all as JSON"),
    ]

    static let usage = """
        usage: capture probe FILE|URL [--json]

        Prints what FILE holds: container, duration, size and bit rate, then each stream with
        its codec, frame size, pixel format, frame rate, exact frame count (counted packet by
        packet when the container does not say), rotation, sample rate and channels, and the
        tags of the file and of each stream. A URL (rtsp://, rtmp://, srt://, http://, udp://…)
        is a live stream: what it sends once connected, without duration or frame counts, its
        password and keys shown as ***.

        \(CommandOption.helpText(for: options))

        Exit status 0 when FILE or URL was read; 66 when the file is missing or unreadable; 65
        when it is not media FFmpeg can read, or damaged; 69 when the stream's server cannot
        be reached, does not answer within 5 s or refuses the credentials.
        """

    struct Report: Encodable {
        struct Stream: Encodable {
            var index: Int
            var kind: String
            var codec: String
            var codecDescription: String
            var profile: String?
            var startTime: Double?
            var duration: Double?
            var bitRate: Int?
            var frameCount: Int?
            var width: Int?
            var height: Int?
            var pixelFormat: String?
            var frameRate: Double?
            var rotation: Int?
            var attachedPicture: Bool?
            var sampleRate: Int?
            var channels: Int?
            var channelLayout: String?
            var sampleFormat: String?
            var tags: [String: String]
        }

        var path: String
        var container: String
        var containerDescription: String
        var startTime: Double?
        var duration: Double?
        var size: Int64?
        var bitRate: Int?
        var streams: [Stream]
        var tags: [String: String]
    }

    static func run(_ words: [String]) throws -> ExitStatus {
        let arguments = try Arguments(words, accepting: options)
        guard arguments.positional.count == 1 else { throw UsageError("give exactly one FILE") }
        let name = arguments.positional[0]
        let info: MediaFileInfo
        if let end = name.range(of: "://"), name[..<end.lowerBound].allSatisfy(\.isLetter), !name.lowercased().hasPrefix("file:") {
            info = try liveStreamInfo(name)
        } else {
            info = try MediaFileInfo(contentsOf: try CommandPath.input(name))
        }
        let report = makeReport(info)
        if arguments.has("json") {
            try Console.printJSON(report)
        } else {
            printText(report)
        }
        return .success
    }

    /// What the live stream at `url` sends; what is not media is a data error, as for a file,
    /// not a usage error.
    private static func liveStreamInfo(_ url: String) throws(CaptureError) -> MediaFileInfo {
        do throws(CaptureError) {
            return try MediaFileInfo(liveStreamAt: url)
        } catch {
            guard error.code == .unsupportedFormat else { throw error }
            throw CaptureError(.unsupportedFile, error.message)
        }
    }

    private static func makeReport(_ info: MediaFileInfo) -> Report {
        let streams = info.streams.map { stream in
            let video = stream.kind == .video, audio = stream.kind == .audio
            return Report.Stream(
                index: stream.index, kind: stream.kind.rawValue, codec: stream.codec, codecDescription: stream.codecDescription,
                profile: stream.profile, startTime: stream.startTime?.seconds, duration: stream.duration?.seconds,
                bitRate: stream.bitRate, frameCount: stream.frameCount, width: stream.width, height: stream.height,
                pixelFormat: stream.pixelFormatName, frameRate: stream.frameRate.map(rounded),
                rotation: video ? stream.rotation : nil, attachedPicture: video && stream.isAttachedPicture ? true : nil,
                sampleRate: audio ? stream.sampleRate : nil, channels: audio ? stream.channelCount : nil,
                channelLayout: stream.channelLayout, sampleFormat: stream.sampleFormatName, tags: stream.metadata)
        }
        return Report(path: info.path, container: info.container, containerDescription: info.containerDescription,
                      startTime: info.startTime?.seconds, duration: info.duration?.seconds, size: info.byteCount,
                      bitRate: info.bitRate, streams: streams, tags: info.metadata)
    }

    private static func printText(_ report: Report) {
        var header = "\(report.path): \(report.containerDescription) (\(report.container))"
        if let duration = report.duration { header += ", \(seconds(duration))" }
        if let size = report.size { header += ", \(size) bytes" }
        if let bitRate = report.bitRate { header += ", \(bitRate / 1000) kb/s" }
        Console.print(header)
        printTags(report.tags, indent: "  ")
        for stream in report.streams {
            var parts = ["\(stream.codec)"]
            if let profile = stream.profile { parts[0] += " (\(profile))" }
            if let width = stream.width, let height = stream.height { parts.append("\(width)x\(height)") }
            if let pixelFormat = stream.pixelFormat { parts.append(pixelFormat) }
            if let rate = stream.frameRate { parts.append("\(number(rate)) fps") }
            if let rotation = stream.rotation, rotation != 0 { parts.append("rotation \(rotation)") }
            if stream.attachedPicture == true { parts.append("cover art") }
            if let rate = stream.sampleRate { parts.append("\(rate) Hz") }
            if let channels = stream.channels { parts.append("\(channels) ch" + (stream.channelLayout.map { " (\($0))" } ?? "")) }
            if let format = stream.sampleFormat { parts.append(format) }
            if let count = stream.frameCount { parts.append("\(count) \(stream.kind == "video" ? "frames" : "packets")") }
            if let duration = stream.duration { parts.append(seconds(duration)) }
            if let bitRate = stream.bitRate { parts.append("\(bitRate / 1000) kb/s") }
            Console.print("  #\(stream.index) \(stream.kind): " + parts.joined(separator: ", "))
            printTags(stream.tags, indent: "      ")
        }
    }

    private static func printTags(_ tags: [String: String], indent: String) {
        for key in tags.keys.sorted() { Console.print("\(indent)\(key): \(tags[key] ?? "")") }
    }

    private static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    private static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(rounded(value))
    }

    private static func seconds(_ value: Double) -> String { String(format: "%.3f s", value) }
}
