import CaptureKit
import CaptureKitPreview
import CommandLineSupport
import Dispatch
import Foundation

/// `capture watch OUTDIR --motion`: records a clip whenever something moves.
enum WatchCommand: Command {
    static let name = "watch"
    static let summary = "record a clip into a folder whenever something moves, sounds or shows a code"
    /// What the command accepts; also the option lines of ``usage``.
    static let options: [CommandOption] = [
        .flag("motion", "trigger on motion (a CaptureMotionOutput)"),
        .value("sound", "LEVEL", "trigger on sound louder than LEVEL dBFS (-30dB, -30) for --sound-for"),
        .value("sound-for", "T", "how long the sound must stay loud (default 0.2s)"),
        .flag("code", "trigger while a QR code or barcode is in view (a CaptureMetadataOutput)"),
        .flag("library", "save each clip into the media library (its thumbnail, the trigger's frame,\nstays in OUTDIR)"),
        .value("root", "DIR", "the library under DIR instead of the user's"),
        .value("device", "ID", "camera unique ID or name, or file:PATH (see 'capture devices')"),
        .value("audio-device", "ID", "microphone unique ID or name, or file:PATH; default: the sound server's\ndefault source"),
        .flag("no-audio", "record video only"),
        .value("sensitivity", "S", "how readily a change counts, 0...1 (default 0.5)"),
        .value("min-area", "F", "share of the watched picture that must change, 0...1 (default 0.005)"),
        .value("ignore", "RECTS", "parts of the picture never watched: x,y,w,h in 0...1, several\nseparated by ';' (0,0,1,0.2;0.8,0.5,0.2,0.5)"),
        .value("post", "T", "still time that ends a clip (default 5s)"),
        .value("pre", "T", "also keep T before motion began (a pre-roll ring of encoded video); clips\nthen start on the keyframe at or before it"),
        .value("duration", "T", "stop after T (10s, 1.5m); default: until interrupted"),
        .flag("web", "serve a web page of the live picture and a timeline of the motion and clips,\neach clip playable in the page"),
    ] + WebPageOptions.options + [
        .flag("unpaced", "read file: devices as fast as the detector and encoder go"),
        .flag("json", "one JSON object per clip and line: file, trigger, score, boxes, duration, frames"),
    ]

    static let usage = """
        usage: capture watch OUTDIR [--motion] [--sound LEVEL [--sound-for T]] [--code]
                             [--library [--root DIR]] [--device ID] [--audio-device ID | --no-audio]
                             [--sensitivity S] [--min-area F] [--ignore RECTS] [--pre T] [--post T]
                             [--web [--port N] [--bind ADDR]] [--duration T] [--unpaced] [--json]

        Watches the default camera, or ID, for motion and records a clip into OUTDIR (made if
        missing) for each episode of motion: from the first frame after motion began (with --pre,
        from T before it) until --post without motion (at most 10 minutes with --pre), as
        motion-YYYYMMDD-HHMMSS.mov (clip-YYYYMMDD-HHMMSS.mov with --pre), with sound from the
        microphone. --sound and --code trigger clips of the pre-roll ring too (--pre, 0 s when not
        given): from T before the sound got loud or the code came into view until --post after.
        Ring clips get a thumbnail of the trigger's frame beside them (clip-….jpg); --library
        moves each finished clip into the media library. --web prints the address of a page with
        the live picture and a timeline of motion and clips (a clip of the pre-roll ring per
        episode of motion, --pre 0 s when not given), where each finished clip plays.
        A line per finished clip says when motion began, how much of the picture moved and how
        long the clip is. Runs until SIGINT (Ctrl-C) / SIGTERM, --duration, or the end of a
        file: device; a clip under way is finished properly.

        \(CommandOption.helpText(for: options))

        Exit status: 0 when at least one clip was recorded, 1 when nothing moved.
        """

    static func run(_ words: [String]) throws -> ExitStatus {
        let arguments = try Arguments(words, accepting: options)
        guard arguments.positional.count == 1 else { throw UsageError("give exactly one output folder") }
        let soundLevel = try arguments.value("sound").map(Self.level)
        guard arguments.has("motion") || soundLevel != nil || arguments.has("code") else {
            throw UsageError("give a trigger: --motion, --sound LEVEL or --code")
        }
        if arguments.value("sound-for") != nil, soundLevel == nil { throw UsageError("--sound-for goes with --sound") }
        if soundLevel != nil, arguments.has("no-audio") { throw UsageError("--sound listens to the microphone: drop --no-audio") }
        let folder = try outputFolder(arguments.positional[0])
        let duration = try arguments.duration("duration")
        let post = try arguments.duration("post") ?? MediaTime(value: 5, timescale: 1)
        if arguments.value("root") != nil, !arguments.has("library") { throw UsageError("--root goes with --library") }
        let library = arguments.has("library") ? try CommandPath.library(arguments) : nil
        // Sound, codes and the library go through the ring's clips: with no --pre, a ring of no
        // time before.
        let ringOnly = soundLevel != nil || arguments.has("code") || library != nil || arguments.has("web")
        if !arguments.has("web"), arguments.value("port") != nil || arguments.value("bind") != nil {
            throw UsageError("--port and --bind go with --web")
        }
        let pre = try arguments.duration("pre") ?? (ringOnly ? MediaTime.zero : nil)
        let motion = CaptureMotionOutput()
        try motion.setQuietPeriod(post)
        if let word = arguments.value("sensitivity") { try motion.setSensitivity(try number(word, "--sensitivity")) }
        if let word = arguments.value("min-area") { try motion.setMinimumChangedArea(try number(word, "--min-area")) }
        if let word = arguments.value("ignore") { try motion.setRegions(try rects(word).map(MotionRegion.ignored)) }

        let pacing: DevicePacing = arguments.has("unpaced") ? .unpaced : .realTime
        let camera = try DeviceLookup.find(arguments.value("device"), mediaType: .video, looping: false, pacing: pacing)
        let microphone = arguments.has("no-audio") ? nil
            : try DeviceLookup.find(arguments.value("audio-device"), mediaType: .audio, looping: false, pacing: pacing)
        let session = CaptureSession()
        let movie = CaptureMovieFileOutput()
        let ring = CapturePreRollOutput()
        let codes = CaptureMetadataOutput()
        if let pre {
            try ring.setClipFolder(folder)
            try ring.setDurations(preRoll: pre, postRoll: post, longestClip: max(MediaTime(value: 600, timescale: 1), pre + post))
            if let soundLevel {
                try ring.setSoundTrigger(SoundTrigger(threshold: soundLevel, minimumDuration: try arguments.duration("sound-for") ?? MediaTime(value: 1, timescale: 5)))
            }
            if arguments.has("code") { ring.triggersOnCodes(from: codes) }
            ring.setClipLibrary(library)
        }
        try session.configure {
            try session.addInput(CaptureDeviceInput(device: camera))
            if let microphone { try session.addInput(CaptureDeviceInput(device: microphone)) }
            if arguments.has("motion") { try session.addOutput(motion) }
            if arguments.has("code") { try session.addOutput(codes) }
            try session.addOutput(pre == nil ? movie : ring)
        }
        if arguments.has("code") { try codes.setMetadataObjectTypes(codes.availableMetadataObjectTypes) }
        let web = arguments.has("web") ? try timelinePage(session, arguments, clips: ring, motion: arguments.has("motion") ? motion : nil) : nil
        defer { web?.stop() }
        let clips = MotionClipRecorder(movie: movie, ring: pre == nil ? nil : ring, folder: folder, json: arguments.has("json"))
        motion.setMotionDelegate(clips, queue: DispatchQueue(label: "capture.watch"))

        let stop = DispatchSemaphore(value: 0)
        let signals = SignalWatcher(signals: [SIGINT, SIGTERM]) { stop.signal() }
        defer { signals.cancel() }
        // File devices play once: watching ends with the camera's file.
        let events = session.events
        let ends = Task {
            for await event in events {
                if case .deviceReachedEnd(let id) = event, id == camera.uniqueID { stop.signal() }
            }
        }
        defer { ends.cancel() }
        try session.startRunning()
        if let duration {
            _ = stop.wait(timeout: .now() + .nanoseconds(Int(duration.convertScale(1_000_000_000).value)))
        } else {
            stop.wait()
        }
        motion.setMotionDelegate(nil, queue: nil)
        let waiting = clips.close()
        try? session.stopRunning()   // finishes a pre-roll clip under way
        if waiting { clips.drained.wait() }
        if let failure = clips.failure { throw failure }
        return clips.finishedCount > 0 ? .success : .failure
    }

    /// The web preview of `session` with the ring's clips and the motion on its timeline.
    private static func timelinePage(_ session: CaptureSession, _ arguments: Arguments, clips: CapturePreRollOutput,
                                     motion: CaptureMotionOutput?) throws -> CaptureWebPreview {
        let options = try WebPageOptions.parse(arguments)
        let preview = try CaptureWebPreview(session: session, options: options)
        preview.showClips(of: clips)
        if let motion { preview.showMotion(of: motion) }
        // With --json, standard output holds one clip per line and nothing else.
        WebPageOptions.announce(preview, serving: "the picture and the timeline", bindAddress: options.bindAddress,
                                say: arguments.has("json") ? Console.error : Console.print)
        return preview
    }

    /// The output folder, made when missing; an existing file is refused.
    private static func outputFolder(_ word: String) throws -> URL {
        guard !word.isEmpty else { throw UsageError("OUTDIR is empty: give a folder") }
        let url = URL(fileURLWithPath: word)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw CaptureError(.fileError, "\(url.path) is a file; give a folder", path: url.path) }
            return url
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw CaptureError(.fileError, "cannot make the folder \(url.path): \(error.localizedDescription)", path: url.path)
        }
        return url
    }

    /// `-30dB`, `-30 dB` or `-30` as dBFS.
    private static func level(_ word: String) throws(UsageError) -> Float {
        let text = word.lowercased().replacingOccurrences(of: "dbfs", with: "").replacingOccurrences(of: "db", with: "")
            .trimmingCharacters(in: .whitespaces)
        guard let value = Float(text), value.isFinite, value <= 0, value >= -160 else {
            throw UsageError("--sound takes a level in dBFS from -160 to 0 (-30dB), not '\(word)'")
        }
        return value
    }

    private static func number(_ word: String, _ option: String) throws(UsageError) -> Double {
        guard let value = Double(word), value.isFinite else { throw UsageError("\(option) takes a number, not '\(word)'") }
        return value
    }

    /// `x,y,w,h;x,y,w,h…` as rectangles.
    static func rects(_ word: String) throws(UsageError) -> [CGRect] {
        try word.split(separator: ";").map { (part) throws(UsageError) -> CGRect in
            let values = part.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard values.count == 4, values.allSatisfy(\.isFinite) else {
                throw UsageError("--ignore takes x,y,w,h rectangles separated by ';', not '\(part)'")
            }
            return CGRect(x: values[0], y: values[1], width: values[2], height: values[3])
        }
    }
}
