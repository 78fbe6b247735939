import CaptureKit
import CommandLineSupport
import Foundation

/// `capture thumbnail FILE OUT`: a picture of a media file at a time, through an
/// `AssetImageGenerator`.
enum ThumbnailCommand: Command {
    static let name = "thumbnail"
    static let summary = "write a thumbnail (JPEG or PNG) of a movie or photo at a time"
    /// What the command accepts; also the option lines of ``usage``.
    static let options: [CommandOption] = [
        .value("width", "W", "largest width in pixels, aspect kept (default 100; 0 = full size)"),
        .value("height", "H", "largest height in pixels, aspect kept (default: no limit)"),
        .value("at", "T", "time in the file: 2s, 1500ms, 1m (default 0s); past the end gives\nthe end"),
        .flag("exact", "the exact frame shown at T (default: the keyframe at or before T,\nwhich is faster)"),
        .flag("no-transform", "keep the pixels as stored (default: turned upright by the file's\nrotation)"),
        .value("quality", "Q", "JPEG quality 1...100 (default 85)"),
        .flag("overwrite", "replace OUT if it exists (default: refuse)"),
    ]

    static let usage = """
        usage: capture thumbnail FILE OUT [--width W] [--height H] [--at T] [--exact] [--no-transform] [--quality Q]
                                          [--overwrite]

        Decodes the picture of FILE (any movie or photo FFmpeg reads) at time T and writes it to
        OUT as JPEG, or PNG when OUT ends in .png. Prints the path, the picture's size and the
        time of the frame it shows.

        \(CommandOption.helpText(for: options))
        """

    static func run(_ words: [String]) throws -> ExitStatus {
        let arguments = try Arguments(words, accepting: options)
        guard arguments.positional.count == 2 else {
            throw UsageError(arguments.positional.count < 2 ? "give FILE and OUT" : "unexpected argument '\(arguments.positional[2])'")
        }
        let overwrite = arguments.has("overwrite")
        let input = try CommandPath.input(arguments.positional[0])
        let output = try CommandPath.output(arguments.positional[1], overwrite: overwrite)
        let width = try arguments.integer("width", default: 100, in: 0...16384)
        let height = try arguments.integer("height", default: 0, in: 0...16384)
        let quality = try arguments.integer("quality", default: 85, in: 1...100)
        let time = try at(arguments)
        let isPNG = output.pathExtension.lowercased() == "png"

        let asset = try MediaAsset(url: input)
        let generator = AssetImageGenerator(asset: asset)
        generator.maximumSize = MediaAsset.Size(width: width, height: height)
        generator.appliesPreferredTrackTransform = !arguments.has("no-transform")
        if arguments.has("exact") {
            generator.requestedTimeToleranceBefore = .zero
            generator.requestedTimeToleranceAfter = .zero
        }
        let (image, actualTime) = try generator.copyImage(at: time)
        let data = isPNG ? try PNGEncoder.encode(image, metadata: nil) : try JPEGEncoder.encode(image, quality: quality, metadata: nil)
        do {
            try data.write(to: output, options: overwrite ? .atomic : .withoutOverwriting)
        } catch {
            throw CaptureError(.fileError, "cannot write the thumbnail: \(error.localizedDescription)", path: output.path)
        }
        Console.print(String(format: "%@: %dx%d %@, %.1f KB, frame at %.3f s (asked %.3f s)", output.path, image.width, image.height,
                             isPNG ? "png" : "jpeg", Double(data.count) / 1024, actualTime.seconds, time.seconds))
        return .success
    }

    /// `--at`: a duration as the other commands take it, or zero (`0`, `0s`, `0ms`).
    private static func at(_ arguments: Arguments) throws(UsageError) -> MediaTime {
        if let text = arguments.value("at"), Double(text.lowercased().trimmingCharacters(in: .letters)) == 0 { return .zero }
        return try arguments.duration("at") ?? .zero
    }
}
