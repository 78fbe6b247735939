import CaptureKit
import CommandLineSupport
import Foundation

/// `capture library`: the media library — list, show, export, delete and import assets.
enum LibraryCommand: Command {
    static let name = "library"
    static let summary = "list, show, export, delete or import the photos and movies of the media library"
    /// What the command accepts; also the option lines of ``usage``.
    static let options: [CommandOption] = [
        .value("kind", "K", "list only photos or only videos"),
        .flag("move", "import: move the files in rather than copy them"),
        .flag("json", "print JSON"),
        .value("root", "DIR", "use the library under DIR (DIR/Photos, DIR/Videos, DIR/library.sqlite)\ninstead of the user's"),
    ]

    static let usage = """
        usage: capture library list [--kind photo|video] [--json] [--root DIR]
               capture library show ID [--json] [--root DIR]
               capture library export ID DEST [--root DIR]
               capture library delete ID [--root DIR]
               capture library import FILE... [--move] [--json] [--root DIR]

        The media library keeps photos in ~/Pictures/CaptureKit and movies in ~/Videos/CaptureKit
        (the XDG Pictures and Videos folders), indexed in ~/.local/share/capturekit/library.sqlite.

          list      every asset, newest first: id, kind, creation date, size, duration, bytes, file
          show      one asset, its file inspected: tracks, codecs, tags
          export    copy an asset's file to DEST (a folder, or a new file's path; never overwrites)
          delete    remove an asset and its file
          import    save photos (.jpg, .jpeg, .png, .heic, .heif) and movies (other files) into the
                    library, each under a generated name; prints each new asset

        \(CommandOption.helpText(for: options))

        Exit status 0 on success; 64 for an unknown ID or a usage error; 66 for a file to import
        that is missing or unreadable; 65 for one that is not a photo or a movie the library
        takes; 73 when a file cannot be written.
        """

    /// An asset as printed.
    struct Report: Encodable {
        struct Track: Encodable {
            var mediaType: String
            var codec: String
            var width: Int?
            var height: Int?
            var frameRate: Double?
            var sampleRate: Int?
            var channels: Int?
            var duration: Double
        }

        var id: String
        var kind: String
        var path: String
        var created: String
        var width: Int
        var height: Int
        var rotation: Int
        var duration: Double
        var bytes: Int64?
        var tracks: [Track]?
        var tags: [String: String]?
    }

    static func run(_ words: [String]) throws -> ExitStatus {
        let arguments = try Arguments(words, accepting: options)
        guard let action = arguments.positional.first else { throw UsageError("missing what to do: list, show, export, delete or import") }
        let operands = Array(arguments.positional.dropFirst())
        func expect(_ count: Int, _ names: String) throws(UsageError) {
            guard operands.count == count else { throw UsageError("'library \(action)' takes \(names)") }
        }
        if arguments.value("kind") != nil, action != "list" { throw UsageError("--kind is for 'library list'") }
        if arguments.has("move"), action != "import" { throw UsageError("--move is for 'library import'") }
        switch action {
        case "list":
            try expect(0, "no operand")
            try list(try open(arguments), kind: try kind(arguments.value("kind")), json: arguments.has("json"))
        case "show":
            try expect(1, "one ID")
            try show(try find(operands[0], in: try open(arguments)), json: arguments.has("json"))
        case "export":
            try expect(2, "an ID and a DEST")
            try export(try find(operands[0], in: try open(arguments)), to: operands[1])
        case "delete":
            try expect(1, "one ID")
            let library = try open(arguments)
            try library.delete(try find(operands[0], in: library))
            Console.print("deleted \(operands[0])")
        case "import":
            guard !operands.isEmpty else { throw UsageError("'library import' takes one FILE or more") }
            for operand in operands { _ = try CommandPath.input(operand) }
            try importFiles(operands, into: try open(arguments), move: arguments.has("move"), json: arguments.has("json"))
        default:
            throw UsageError("unknown action '\(action)': list, show, export, delete or import")
        }
        return .success
    }

    private static func open(_ arguments: Arguments) throws -> MediaLibrary { try CommandPath.library(arguments) }

    private static func kind(_ name: String?) throws(UsageError) -> MediaAsset.Kind? {
        guard let name else { return nil }
        guard let kind = MediaAsset.Kind(rawValue: name.lowercased()) else { throw UsageError("--kind must be photo or video, not '\(name)'") }
        return kind
    }

    private static func find(_ id: String, in library: MediaLibrary) throws -> MediaAsset {
        guard let asset = try library.asset(id: id) else {
            throw CaptureError(.invalidArgument, "the library has no asset \(id) ('capture library list' shows the ids)")
        }
        return asset
    }

    private static func list(_ library: MediaLibrary, kind: MediaAsset.Kind?, json: Bool) throws {
        let reports = try library.assets(kind: kind).map { report($0, inspected: false) }
        if json {
            try Console.printJSON(reports)
            return
        }
        for item in reports {
            let duration = item.kind == "video" ? String(format: "%.3f s", item.duration) : "-"
            Console.print("\(item.id)  \(item.kind)  \(item.created)  \(item.width)x\(item.height)  \(duration)  \(item.bytes.map(String.init) ?? "?") bytes  \(item.path)")
        }
    }

    private static func show(_ indexed: MediaAsset, json: Bool) throws {
        // The index has the summary; the file has the tracks and tags.
        let asset = (try? MediaAsset(url: indexed.fileURL, id: indexed.id)).map { probed in
            probed.kind == indexed.kind ? probed : indexed
        } ?? indexed
        var item = report(asset, inspected: true)
        item.created = timestamp(indexed.creationDate)
        if json {
            try Console.printJSON(item)
            return
        }
        Console.print("\(item.id): \(item.kind), \(item.width)x\(item.height)" + (item.rotation != 0 ? " turned \(item.rotation)°" : "")
                      + (item.kind == "video" ? String(format: ", %.3f s", item.duration) : "")
                      + ", \(item.bytes.map(String.init) ?? "?") bytes, created \(item.created)")
        Console.print("  \(item.path)")
        for track in item.tracks ?? [] {
            var parts = [track.codec]
            if let width = track.width, let height = track.height { parts.append("\(width)x\(height)") }
            if let rate = track.frameRate { parts.append(String(format: "%.3f fps", rate)) }
            if let rate = track.sampleRate { parts.append("\(rate) Hz") }
            if let channels = track.channels { parts.append("\(channels) ch") }
            Console.print("  \(track.mediaType): " + parts.joined(separator: ", "))
        }
        for key in (item.tags ?? [:]).keys.sorted() { Console.print("  \(key): \(item.tags?[key] ?? "")") }
    }

    private static func export(_ asset: MediaAsset, to destination: String) throws {
        var target = URL(fileURLWithPath: destination)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: target.path, isDirectory: &isFolder), isFolder.boolValue {
            target.appendPathComponent(asset.fileURL.lastPathComponent)
        }
        do {
            try FileManager.default.copyItem(at: asset.fileURL, to: target)
        } catch {
            throw CaptureError(.fileError, "cannot export \(asset.id): \(error.localizedDescription)", path: target.path)
        }
        Console.print(target.path)
    }

    private static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "heic", "heif"]

    private static func importFiles(_ paths: [String], into library: MediaLibrary, move: Bool, json: Bool) throws {
        var reports: [Report] = []
        for path in paths {
            let url = URL(fileURLWithPath: path)
            let asset: MediaAsset
            if imageExtensions.contains(url.pathExtension.lowercased()) {
                let data: Data
                do {
                    data = try Data(contentsOf: url)
                } catch {
                    throw CaptureError(.fileError, "cannot read the photo: \(error.localizedDescription)", path: path)
                }
                let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
                asset = try library.saveImage(data, fileExtension: url.pathExtension, creationDate: attributes?[.modificationDate] as? Date)
                if move { try? FileManager.default.removeItem(at: url) }
            } else {
                asset = try library.saveVideo(at: url, move: move)
            }
            let item = report(asset, inspected: false)
            if json { reports.append(item) } else { Console.print("\(path) -> \(item.path) (\(item.id))") }
        }
        if json { try Console.printJSON(reports) }
    }

    /// `date` in ISO 8601, local time, with milliseconds.
    private static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = .current
        return formatter.string(from: date)
    }

    private static func report(_ asset: MediaAsset, inspected: Bool) -> Report {
        let attributes = try? FileManager.default.attributesOfItem(atPath: asset.fileURL.path)
        let tracks = asset.tracks.map { track in
            Report.Track(mediaType: track.mediaType.rawValue, codec: track.codec, width: track.naturalSize?.width,
                         height: track.naturalSize?.height, frameRate: track.nominalFrameRate.map { ($0 * 1000).rounded() / 1000 },
                         sampleRate: track.sampleRate, channels: track.channelCount, duration: track.duration.seconds)
        }
        return Report(id: asset.id, kind: asset.kind.rawValue, path: asset.fileURL.path, created: timestamp(asset.creationDate),
                      width: asset.naturalSize.width, height: asset.naturalSize.height, rotation: asset.preferredTransform.rotation,
                      duration: asset.duration.seconds, bytes: (attributes?[.size] as? NSNumber)?.int64Value,
                      tracks: inspected ? tracks : nil, tags: inspected ? asset.metadata : nil)
    }
}
