import CaptureKit
import CommandLineSupport
import Dispatch
import Foundation
import Synchronization

/// `capture record OUT`: records a movie from a camera (and microphone).
enum RecordCommand: Command {
    static let name = "record"
    static let summary = "record a movie (.mov, .mp4, .mkv) from a camera and microphone"
    /// What the command accepts; also the option lines of ``usage``.
    static let options: [CommandOption] = [
        .value("device", "ID", "camera unique ID or name, or file:PATH (see 'capture devices'); give\nit several times to record several cameras (see --layout)"),
        .value("layout", "L", "with several --device: separate (default: OUT is a folder of\ncamera1.mp4, camera2.mp4, … all started on one frame time), pip\n(the second camera inset in the first) or side-by-side"),
        .value("audio-device", "ID", "microphone unique ID or name (pulse:SOURCE for a sound-server\nsource), or file:PATH; default: the sound server's default source\n(a network camera's own sound)"),
        .flag("no-audio", "record video only"),
        .value("duration", "T", "stop after T (10s, 1.5m, 500ms); default: until interrupted"),
        .value("preset", "P", "session preset: \(CaptureSession.Preset.allCases.map(\.rawValue).joined(separator: ", ")) (default high)"),
        .value("codec", "C", "video codec: h264 (default), hevc, mjpeg; a network camera's own\nH.264 or HEVC by default, stored as it came"),
        .flag("transcode", "decode and encode a network camera's video again instead of storing\nit as it came"),
        .value("fragment", "T", "write a self-contained fragment every T (default 1s; 0 = off)"),
        .value("keyframe-interval", "T", "time between keyframes (default: the fragment interval, or 2s\nwithout fragments)"),
        .value("segment", "T", "split the recording into files of T (60s, at least 1s), cut on the\nclock's multiples of T: OUT is then a folder (made if missing) of\nsegment-YYYYMMDD-HHMMSS.mp4 files and their index, segments.jsonl"),
        .value("retain", "LIMIT", "with --segment: keep at most this age (24h, 90m) or size (10GB,\n500MB) of segments, deleting the oldest whole ones"),
        .flag("unpaced", "read file: devices as fast as the encoder goes, not in real time"),
        .flag("quiet", "no progress line"),
        .flag("save-to-library", "also put the finished movie into the media library (a copy; OUT\nstays) and write its 100-pixel cover image beside OUT (OUT.cover.jpg)"),
        .value("root", "DIR", "the library under DIR instead of the user's"),
    ]

    static let usage = """
        usage: capture record OUT [--device ID]… [--layout separate|pip|side-by-side]
                              [--audio-device ID | --no-audio] [--duration T]
                              [--preset P] [--codec h264|hevc|mjpeg] [--transcode] [--fragment T]
                              [--keyframe-interval T]
                              [--segment T [--retain LIMIT]]
                              [--unpaced] [--quiet]
                              [--save-to-library [--root DIR]]

        Records OUT (container by extension: .mov, .mp4, .mkv) from the default camera and
        microphone until --duration has passed, or until SIGINT (Ctrl-C) / SIGTERM; either way
        the file is finished properly. On a terminal a progress line shows elapsed time, frame
        rate, dropped samples and size. Exit status 0 when the file is complete; 73 when the
        disk filled up (the file then plays up to its last fragment); 1 for other failures.
        With --segment, OUT is a folder of segments, each cut on a keyframe at the clock's
        multiples of T and playable alone; --retain deletes the oldest beyond an age or size.

        \(CommandOption.helpText(for: options))

        A file: device is played once: the recording ends with the file. With several
        --device, the cameras run in one multi-camera session; its formats must fit on the
        cameras' USB buses together (refused before starting, with the reason, if not), and
        one camera lost ends every file, all complete.
        """

    static func run(_ words: [String]) throws -> ExitStatus {
        let arguments = try Arguments(words, accepting: options)
        guard arguments.positional.count == 1 else { throw UsageError("give exactly one output file") }
        if arguments.value("root") != nil, !arguments.has("save-to-library") { throw UsageError("--root goes with --save-to-library") }
        let segmentation = try segmentation(arguments)
        if segmentation != nil, arguments.has("save-to-library") { throw UsageError("--save-to-library takes one movie, not --segment's folder") }
        let url = try segmentation.map { _ in try segmentFolder(arguments.positional[0]) } ?? CommandPath.output(arguments.positional[0])
        // The library is opened before recording, so an unusable one costs no recording.
        let library = arguments.has("save-to-library") ? try CommandPath.library(arguments) : nil
        let duration = try arguments.duration("duration")
        var preset = CaptureSession.Preset.high
        if let name = arguments.value("preset") {
            guard let chosen = CaptureSession.Preset(rawValue: name) else { throw UsageError("unknown preset '\(name)'") }
            preset = chosen
        }
        var codec: MovieOutputSettings.VideoCodec?
        if let name = arguments.value("codec") {
            guard let chosen = MovieOutputSettings.VideoCodec(rawValue: name) else { throw UsageError("unknown codec '\(name)'") }
            codec = chosen
        }
        let fragment: MediaTime
        if arguments.value("fragment") == "0" {
            fragment = .invalid
        } else {
            fragment = try arguments.duration("fragment") ?? MediaTime(value: 1, timescale: 1)
        }

        let keyframeInterval = try arguments.duration("keyframe-interval")

        let pacing: DevicePacing = arguments.has("unpaced") ? .unpaced : .realTime
        if arguments.values("device").count > 1 {
            return try recordSeveral(arguments, output: arguments.positional[0], duration: duration, codec: codec, fragment: fragment,
                                     pacing: pacing, segmented: segmentation != nil)
        }
        if arguments.value("layout") != nil { throw UsageError("--layout goes with several --device") }
        let camera = try DeviceLookup.find(arguments.value("device"), mediaType: .video, looping: false, pacing: pacing)
        let microphone = arguments.has("no-audio") ? nil
            : try DeviceLookup.microphone(for: camera, named: arguments.value("audio-device"), pacing: pacing)

        let session = CaptureSession()
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: camera))
        if let microphone { try session.addInput(CaptureDeviceInput(device: microphone)) }
        try session.setSessionPreset(preset)
        let movie = CaptureMovieFileOutput()
        movie.movieFragmentInterval = fragment
        if let duration { movie.maxRecordedDuration = duration }
        try session.addOutput(movie)
        try session.commitConfiguration()
        for connection in movie.connections {
            // The output's own default: H.264, or what a network camera sends (stored as sent).
            var settings = movie.outputSettings(for: connection)
            if let codec { settings.videoCodec = codec }
            if let keyframeInterval { settings.keyframeInterval = keyframeInterval }
            if arguments.has("transcode") { settings.passThrough = false }
            if url.pathExtension.lowercased() == "mkv" { settings.audioCodec = .opus }
            movie.setOutputSettings(settings, for: connection)
        }
        if let video = movie.connection(with: .video), movie.passesVideoThrough(for: video), !arguments.has("quiet") {
            Console.print("video: \(camera.activeFormat.encoding.rawValue) as the camera sends it, not re-encoded (--transcode to encode)")
        }

        // Signals end the recording properly instead of killing the process; SIGXFSZ is ignored
        // so a file size limit shows up as a write error (and a finished file), not a crash.
        signal(SIGXFSZ, SIG_IGN)
        let interrupt = SignalWatcher(signals: [SIGINT, SIGTERM]) { movie.stopRecording() }
        defer { interrupt.cancel() }

        // File devices are played once: the recording ends when all of them have ended.
        let files = Set([camera, microphone].compactMap { $0 }.filter { $0.deviceType == .file }.map(\.uniqueID))
        let events = session.events
        let ends = Task {
            var ended = Set<String>()
            for await event in events {
                guard case .deviceReachedEnd(let id) = event else { continue }
                ended.insert(id)
                if ended.isSuperset(of: files) { movie.stopRecording() }
            }
        }
        defer { ends.cancel() }
        // Armed before the session starts, so the first frame is recorded (an unpaced file
        // would otherwise be half read before recording began).
        let finished = RecordingWaiter()
        if let segmentation {
            try movie.startRecording(toFolder: url, segmentation: segmentation, recordingDelegate: finished)
        } else {
            try movie.startRecording(to: url, recordingDelegate: finished)
        }
        do {
            try session.startRunning()
        } catch {
            movie.stopRecording()
            throw error
        }
        let progress = !arguments.has("quiet") && isatty(STDERR_FILENO) == 1
        let started = MediaTime.now.value
        while finished.wait(seconds: 0.5) == nil {
            if progress {
                let seconds = movie.recordedDuration.seconds
                let elapsed = Double(MediaTime.now.value - started) / 1e9
                let line = String(format: "\r%@  %6.1f s  %5.1f fps  dropped %d  %.1f MB ", url.lastPathComponent, seconds,
                                  elapsed > 0 ? Double(movie.recordedVideoFrameCount) / elapsed : 0,
                                  movie.droppedSampleCount, Double(movie.recordedFileSize) / 1e6)
                FileHandle.standardError.write(Data(line.utf8))
            }
        }
        if progress { FileHandle.standardError.write(Data("\n".utf8)) }
        try? session.stopRunning()
        let error = finished.wait(seconds: 0) ?? nil
        if let clip = movie.lastRecordedMovie {
            Console.print(String(format: "%@: %.3f s, %d frames, %d bytes, %d dropped", clip.url.path, clip.duration.seconds,
                                 clip.videoFrameCount, clip.fileSize, clip.droppedSampleCount))
        }
        if let error {
            guard error.recordingSuccessfullyFinished else { throw error }
            Console.print("stopped: \(error.message)")
        }
        if let library { try saveToLibrary(url, in: library) }
        return .success
    }
}

extension RecordCommand {
    /// The multi-camera form: several `--device`.
    static func recordSeveral(_ arguments: Arguments, output: String, duration: MediaTime?, codec: MovieOutputSettings.VideoCodec?,
                              fragment: MediaTime, pacing: DevicePacing, segmented: Bool) throws -> ExitStatus {
        for option in ["preset", "keyframe-interval", "save-to-library", "transcode"] where arguments.value(option) != nil || arguments.has(option) {
            throw UsageError("--\(option) takes one camera, not several --device")
        }
        if segmented { throw UsageError("--segment takes one camera, not several --device") }
        let layout = try MultiCameraRecording.layout(arguments)
        let names = arguments.values("device")
        if layout != .separate, names.count != 2 { throw UsageError("--layout \(layout.rawValue) draws two cameras, not \(names.count)") }
        let cameras = try names.map { try DeviceLookup.find($0, mediaType: .video, looping: false, pacing: pacing) }
        let microphone = arguments.has("no-audio") ? nil
            : try DeviceLookup.microphone(for: cameras[0], named: arguments.value("audio-device"), pacing: pacing)
        let url = layout == .separate ? try segmentFolder(output) : try CommandPath.output(output)
        let recording = MultiCameraRecording(layout: layout, cameras: cameras, microphone: microphone, output: url, duration: duration,
                                             codec: codec, fragment: fragment)
        return try recording.run(quiet: arguments.has("quiet"))
    }

    /// `--segment T [--retain LIMIT]` as segmentation settings; nil without `--segment`.
    static func segmentation(_ arguments: Arguments) throws -> MovieSegmentation? {
        guard let duration = try arguments.duration("segment") else {
            if arguments.value("retain") != nil { throw UsageError("--retain goes with --segment") }
            return nil
        }
        var segmentation = MovieSegmentation()
        segmentation.duration = duration
        if let limit = arguments.value("retain") {
            let units: [(suffix: String, bytes: Double)] = [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)]
            if let unit = units.first(where: { limit.uppercased().hasSuffix($0.suffix) }) {
                guard let number = Double(limit.dropLast(unit.suffix.count)), number > 0, number.isFinite else {
                    throw UsageError("--retain must look like 24h, 90m, 10GB or 500MB, not '\(limit)'")
                }
                segmentation.maximumBytes = Int64(number * unit.bytes)
            } else {
                guard let age = try? arguments.duration("retain") else {
                    throw UsageError("--retain must look like 24h, 90m, 10GB or 500MB, not '\(limit)'")
                }
                segmentation.maximumAge = .nanoseconds(age.nanoseconds ?? 0)
            }
        }
        return segmentation
    }

    /// The folder `word` names for segments, made if missing.
    static func segmentFolder(_ word: String) throws -> URL {
        guard !word.isEmpty else { throw UsageError("OUT is empty: give a folder for the segments") }
        let url = URL(fileURLWithPath: word)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw CaptureError(.fileError, "cannot make the folder \(url.path) for the segments", path: url.path)
        }
        return url
    }

    /// Copies the finished movie into the library and writes its cover image beside it, as the
    /// seed's capture manager does after recording.
    static func saveToLibrary(_ url: URL, in library: MediaLibrary) throws {
        let asset = try library.saveVideo(at: url, move: false)
        let generator = AssetImageGenerator(asset: asset)
        generator.maximumSize = MediaAsset.Size(width: 100, height: 0)
        generator.appliesPreferredTrackTransform = true
        let cover = try generator.jpegData(at: .zero)
        let coverURL = url.appendingPathExtension("cover.jpg")
        try cover.data.write(to: coverURL, options: .withoutOverwriting)
        Console.print("saved to the library: \(asset.fileURL.path) (id \(asset.id))")
        Console.print("cover image: \(coverURL.path)")
    }
}

/// Waits for `didFinishRecording` and keeps its error (and the recording's start time).
final class RecordingWaiter: CaptureFileOutputRecordingDelegate {
    private let done = DispatchSemaphore(value: 0)
    private let result = Mutex<CaptureError??>(nil)
    private let started = Mutex<MediaTime?>(nil)

    /// The capture time of the recording's first frame, once it started.
    var startTime: MediaTime? { started.withLock { $0 } }

    func fileOutput(_ output: CaptureMovieFileOutput, didStartRecordingTo fileURL: URL, startPTS: MediaTime, from connections: [CaptureConnection]) {
        started.withLock { $0 = startPTS }
    }

    func fileOutput(_ output: CaptureMovieFileOutput, didFinishRecordingTo fileURL: URL, from connections: [CaptureConnection], error: (any Error)?) {
        result.withLock { $0 = .some(error as? CaptureError) }
        done.signal()
    }

    /// The recording's outcome (`.some(nil)` = finished without error), or nil while it runs.
    func wait(seconds: Double) -> CaptureError?? {
        if let outcome = result.withLock({ $0 }) { return outcome }
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        done.signal()
        return result.withLock { $0 }
    }
}
