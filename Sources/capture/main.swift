import CaptureKit
import CommandLineSupport
import Foundation

/// `capture`: CaptureKit's command line.
let commands: [any Command.Type] = [DevicesCommand.self, FormatsCommand.self, ControlsCommand.self, FramesCommand.self, RecordCommand.self, ProbeCommand.self, PhotoCommand.self, ThumbnailCommand.self, LibraryCommand.self, LevelsCommand.self, ScanCommand.self, WatchCommand.self, TimeLapseCommand.self, StreamCommand.self, PreviewCommand.self]

let overview = """
    usage: capture <command> [options]

    Commands:
    \(commands.map { "  \($0.name.padding(toLength: 10, withPad: " ", startingAt: 0))\($0.summary)" }.joined(separator: "\n"))

    'capture <command> --help' describes a command; '--verbose' with any command also prints
    the log lines of the libraries underneath (FFmpeg's), which are silent otherwise; '--portal'
    reaches cameras only through the desktop's Camera portal, as a sandboxed application must
    (the default inside Flatpak and with CAPTUREKIT_CAMERA_PORTAL=1), asking for access before
    it looks for one.
    """

@MainActor func main() -> ExitStatus {
    let words = Array(CommandLine.arguments.dropFirst())
    guard let first = words.first, !["--help", "-h", "help"].contains(first) else {
        Console.print(overview)
        return words.isEmpty ? .usage : .success
    }
    guard let command = commands.first(where: { $0.name == first }) else {
        Console.error("unknown command '\(first)'; 'capture --help' lists the commands")
        return .usage
    }
    var rest = Array(words.dropFirst())
    // --verbose, for every command: the libraries' own log lines (FFmpeg's), silent otherwise.
    if let verbose = rest.firstIndex(of: "--verbose"), verbose < (rest.firstIndex(of: "--") ?? rest.endIndex) {
        rest.remove(at: verbose)
        CaptureLog.setHandler(upTo: .info) { _, source, message in Console.error("\(source): \(message)") }
    }
    // --portal, for every command: cameras through the Camera portal only.
    if let portal = rest.firstIndex(of: "--portal"), portal < (rest.firstIndex(of: "--") ?? rest.endIndex) {
        rest.remove(at: portal)
        CaptureDevice.cameraRoute = .portal
    }
    if rest.contains("--help") || rest.contains("-h") {
        Console.print(command.usage)
        return .success
    }
    do {
        return try command.run(rest)
    } catch let error as UsageError {
        Console.error("\(command.name): \(error.message) (see 'capture \(command.name) --help')")
        return .usage
    } catch let error as InputError {
        Console.error("\(command.name): \(error.message)")
        return .noInput
    } catch let error as CaptureError {
        Console.error("\(command.name): \(error)")
        switch error.code {
        case .deviceNotFound, .deviceBusy, .deviceDisconnected, .notAuthorized, .connectionFailed, .connectionLost: return .unavailable
        case .fileError, .diskFull: return .cannotCreate
        case .unsupportedFile, .corruptFile: return .dataError
        case .invalidArgument, .unsupportedFormat, .unsupportedPreset: return .usage
        default: return .failure
        }
    } catch {
        Console.error("\(command.name): \(error)")
        return .failure
    }
}

exit(main().rawValue)
