import CaptureKit
import CommandLineSupport
import Dispatch
import Foundation
import Synchronization

/// `capture timelapse --every T`: interval photos and/or a time-lapse movie from a camera.
enum TimeLapseCommand: Command {
    static let name = "timelapse"
    static let summary = "take a time-lapse: photos every T into the library or a folder, and/or a movie"
    /// What the command accepts; also the option lines of ``usage``.
    static let options: [CommandOption] = [
        .value("every", "T", "one shot every T (10s, 500ms, 5m, 1h); required"),
        .value("movie", "OUT", "make a time-lapse movie OUT (.mov, .mp4, .mkv): one frame per shot"),
        .value("fps", "N", "the movie plays at N frames per second (default 30)"),
        .flag("library", "save every shot as a photo in the media library"),
        .value("root", "DIR", "the library under DIR instead of the user's"),
        .value("folder", "DIR", "save every shot as a JPEG file in DIR (made if missing)"),
        .value("device", "ID", "camera unique ID or name, or file:PATH (see 'capture devices')"),
        .value("duration", "T", "stop after T of schedule (its slots up to then); default: until interrupted"),
        .value("shots", "N", "stop after N shots"),
        .value("window", "HH:MM-HH:MM", "take shots only within this daily window, local time (may cross\nmidnight; give it more than once for several)"),
        .flag("align", "put the shots on wall-clock multiples of T (every 10s at :00, :10 ...)"),
        .value("preset", "P", "session preset: \(CaptureSession.Preset.allCases.map(\.rawValue).joined(separator: ", ")) (default high)"),
        .flag("unpaced", "read file: devices as fast as the time-lapse goes, not in real time"),
        .flag("quiet", "no status line"),
    ]

    static let usage = """
        usage: capture timelapse --every T [--movie OUT [--fps N]] [--library [--root DIR]] [--folder DIR]
                                 [--device ID] [--duration T | --shots N] [--window HH:MM-HH:MM]... [--align]
                                 [--preset P] [--unpaced] [--quiet]

        Takes a shot every T on a fixed schedule: shot k is the first frame captured at or after
        start + k × T. A slot with no frame in time (the camera stalled) is skipped and counted;
        the next shot stays on the schedule. Shots go into the media library (--library), a
        folder (--folder) and/or a movie that plays them at --fps (--movie); at least one.
        Runs until --duration or --shots, the end of a file: device, or SIGINT (Ctrl-C) /
        SIGTERM; the movie is finished properly either way. On a terminal a status line shows
        shots, missed slots and the time to the next shot. Exit status 0 when everything was
        written; 73 when the disk filled up (the movie then plays up to its last shot).

        \(CommandOption.helpText(for: options))
        """

    static func run(_ words: [String]) throws -> ExitStatus {
        let arguments = try Arguments(words, accepting: options)
        guard arguments.positional.isEmpty else { throw UsageError("unexpected '\(arguments.positional[0])': the movie is --movie OUT") }
        guard let interval = try arguments.duration("every") else { throw UsageError("give the interval: --every 10s") }
        if arguments.value("root") != nil, !arguments.has("library") { throw UsageError("--root goes with --library") }
        if arguments.value("fps") != nil, arguments.value("movie") == nil { throw UsageError("--fps goes with --movie") }
        if arguments.value("duration") != nil, arguments.value("shots") != nil { throw UsageError("give --duration or --shots, not both") }
        var schedule = TimeLapseSchedule(every: interval, alignedToWallClock: arguments.has("align"))
        for text in arguments.values("window") {
            do {
                schedule.windows.append(try TimeLapseSchedule.DailyWindow(parsing: text))
            } catch {
                throw UsageError("--window: \(error.message)")
            }
        }
        do { try schedule.validate() } catch { throw UsageError("--every: \(error.message)") }
        let fps = try arguments.integer("fps", default: 30, in: 1...240)
        let shots = try arguments.integer("shots", default: 0, in: 1...Int(Int32.max))
        let duration = try arguments.duration("duration")
        var preset = CaptureSession.Preset.high
        if let name = arguments.value("preset") {
            guard let chosen = CaptureSession.Preset(rawValue: name) else { throw UsageError("unknown preset '\(name)'") }
            preset = chosen
        }
        // Every destination is checked before the camera opens, so a mistake costs no shot.
        let movieURL = try arguments.value("movie").map { try CommandPath.output($0, what: "--movie") }
        let library = arguments.has("library") ? try CommandPath.library(arguments) : nil
        let folder = try CommandPath.folder(arguments, "folder")
        guard movieURL != nil || library != nil || folder != nil else {
            throw UsageError("say where the shots go: --movie OUT, --library and/or --folder DIR")
        }
        if let folder { try makeFolder(folder) }

        let pacing: DevicePacing = arguments.has("unpaced") ? .unpaced : .realTime
        let camera = try DeviceLookup.find(arguments.value("device"), mediaType: .video, looping: false, pacing: pacing)
        let session = CaptureSession()
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: camera))
        try session.setSessionPreset(preset)
        let timeLapse = CaptureTimeLapseOutput()
        timeLapse.maxShotCount = shots == 0 ? 0 : shots
        if let duration { timeLapse.maxDuration = duration }
        try session.addOutput(timeLapse)
        try session.commitConfiguration()

        // Both destinations at once: the library's copy is the one reported; a folder gets its own.
        let photos: TimeLapsePhotoDestination? = library.map { .library($0) } ?? folder.map { .folder($0) }
        let extraFolder = library != nil ? folder : nil
        let movie = movieURL.map { TimeLapseMovie(url: $0, framesPerSecond: Int32(fps)) }
        signal(SIGXFSZ, SIG_IGN)
        let interrupt = SignalWatcher(signals: [SIGINT, SIGTERM]) { timeLapse.stop() }
        defer { interrupt.cancel() }
        // Subscribed before the start, so the end cannot pass unseen.
        let events = timeLapse.events
        let status = TimeLapseStatus()
        let finished = DispatchSemaphore(value: 0)
        let result = Mutex<TimeLapseSummary?>(nil)
        let watcher = Task { [extraFolder] in
            for await event in events {
                switch event {
                case .started(let origin): status.started(at: origin)
                case .shotTaken(let shot):
                    if let extraFolder, let photo = shot.photoURL {
                        try? FileManager.default.copyItem(at: photo, to: extraFolder.appendingPathComponent(photo.lastPathComponent))
                    }
                case .finished(let summary):
                    result.withLock { $0 = summary }
                    finished.signal()
                    return
                default: break
                }
            }
        }
        // Armed before the session starts, so slot 0 is the first frame.
        try timeLapse.start(schedule, photos: photos, movie: movie)
        let ends = Task {
            for await event in session.events {
                if case .deviceReachedEnd = event { timeLapse.stop() }
            }
        }
        defer { ends.cancel() }
        do {
            try session.startRunning()
        } catch {
            timeLapse.stop()
            throw error
        }
        let progress = !arguments.has("quiet") && isatty(STDERR_FILENO) == 1
        while finished.wait(timeout: .now() + 0.5) == .timedOut {
            if progress { FileHandle.standardError.write(Data(status.line(timeLapse.statistics, interval: interval).utf8)) }
        }
        if progress { FileHandle.standardError.write(Data("\n".utf8)) }
        try? session.stopRunning()
        watcher.cancel()
        guard let summary = result.withLock({ $0 }) else { return .failure }
        let counts = summary.statistics
        Console.print("\(counts.shots) shots, \(counts.missedSlots) missed, \(counts.framesSeen) frames seen")
        if let movie = summary.movie {
            if let error = movie.error, !error.recordingSuccessfullyFinished {
                Console.print(String(format: "%@: %d frames (failed: %@)", movie.url.path, movie.videoFrameCount, error.message))
            } else {
                Console.print(String(format: "%@: %d frames, %.3f s at %d fps, %d bytes", movie.url.path, movie.videoFrameCount,
                                     movie.duration.seconds, fps, movie.fileSize))
            }
        }
        if let error = summary.error {
            guard error.recordingSuccessfullyFinished else { throw error }
            Console.print("stopped: \(error.message)")
        }
        if let error = summary.movie?.error, !error.recordingSuccessfullyFinished, error.code != .invalidState { throw error }
        return .success
    }

    /// Makes the photo folder (and its parents) unless it exists; `.fileError` when it cannot.
    private static func makeFolder(_ folder: URL) throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw CaptureError(.fileError, "cannot make the folder \(folder.path): \(error.localizedDescription)", path: folder.path)
        }
    }
}
