import CaptureKit
import CommandLineSupport
import Dispatch
import Foundation
import Synchronization

/// `capture stream URL...`: publishes a camera (and microphone) live to media servers.
enum StreamCommand: Command {
    static let name = "stream"
    static let summary = "stream a camera and microphone live to RTMP, SRT or RTSP servers, or as HLS files"
    /// What the command accepts; also the option lines of ``usage``.
    static let options: [CommandOption] = [
        .value("device", "ID", "camera unique ID or name, or file:PATH (see 'capture devices')"),
        .value("audio-device", "ID", "microphone unique ID or name, or file:PATH; default: the sound server's\ndefault source (a network camera's own sound)"),
        .flag("no-audio", "stream video only"),
        .value("bitrate", "B", "video bit rate: 2500k, 4M or bits per second (default 2500k)"),
        .value("keyframe-interval", "T", "time between keyframes (default 2s)"),
        .flag("adaptive-bitrate", "lower the bit rate while a link is congested, raise it again after"),
        .value("record", "FILE", "also record what is streamed (.mov, .mp4, .mkv), from the same encode"),
        .value("duration", "T", "stop after T (10s, 1.5m); default: until interrupted"),
        .value("preset", "P", "session preset: \(CaptureSession.Preset.allCases.map(\.rawValue).joined(separator: ", ")) (default high)"),
        .value("max-delay", "T", "the most media a slow destination holds before it drops a group (default 2s)"),
        .value("retries", "N", "give a destination up after N failed reconnections (default: never)"),
        .flag("hls-event", "HLS: an event playlist of every segment (default: the newest 6)"),
        .flag("hls-fmp4", "HLS: fragmented MP4 segments (default: MPEG-TS)"),
        .flag("json", "at the end, one JSON object: each destination's statistics, the recording"),
        .flag("quiet", "no status line"),
    ]

    static let usage = """
        usage: capture stream URL... [--device ID] [--audio-device ID | --no-audio] [--bitrate B]
                              [--keyframe-interval T] [--adaptive-bitrate] [--record FILE] [--duration T] [--preset P]
                              [--max-delay T] [--retries N] [--hls-event] [--hls-fmp4] [--json] [--quiet]

        Publishes the default camera, or ID, with sound from the microphone, to every URL at once
        from one encode (H.264 at a constant bit rate, AAC):
          rtmp://HOST[:PORT]/APP/KEY, rtmps://…        RTMP (nginx-rtmp, MediaMTX, YouTube, Twitch)
          srt://HOST:PORT?mode=caller[&passphrase=P]   SRT to a listener
          srt://:PORT?mode=listener                    SRT: wait for a caller (ffplay srt://HOST:PORT)
          rtsp://HOST[:PORT]/PATH[?transport=udp]      RTSP RECORD (MediaMTX, GStreamer)
          /FOLDER/NAME.m3u8                            HLS files for any web server
        A destination that is down or goes away is retried, every 0.1 s at first and then every
        0.5 s, and resumes at a keyframe; a slow one drops whole groups of frames, counted; the
        recording (--record) keeps every frame whatever the network does. Events go to stderr, one
        line each; on a terminal a status line shows time, frame rate, bit rate, drops and
        reconnects. Stream keys, passphrases and passwords are shown as ***. Runs until --duration,
        SIGINT (Ctrl-C) / SIGTERM, or the end of a file: device; streams end cleanly and the
        recording is finished either way.

        \(CommandOption.helpText(for: options))
        """

    static func run(_ words: [String]) throws -> ExitStatus {
        let arguments = try Arguments(words, accepting: options)
        guard !arguments.positional.isEmpty else { throw UsageError("give at least one URL to stream to") }
        var destinations: [StreamDestination] = []
        for text in arguments.positional {
            var destination = try StreamDestination(text)
            if arguments.has("hls-event") { destination.hlsPlaylist = .event }
            if arguments.has("hls-fmp4") { destination.hlsSegmentFormat = .fmp4 }
            destinations.append(destination)
        }
        let bitRate = try bits(arguments.value("bitrate")) ?? 2_500_000
        let duration = try arguments.duration("duration")
        var preset = CaptureSession.Preset.high
        if let name = arguments.value("preset") {
            guard let chosen = CaptureSession.Preset(rawValue: name) else { throw UsageError("unknown preset '\(name)'") }
            preset = chosen
        }
        let record = try arguments.value("record").map { try CommandPath.output($0, what: "--record") }

        let stream = CaptureStreamOutput()
        try stream.setDestinations(destinations)
        try stream.setVideoBitRate(bitRate)
        try stream.setEncoding(keyframeInterval: try arguments.duration("keyframe-interval") ?? MediaTime(value: 2, timescale: 1))
        if let delay = try arguments.duration("max-delay") { try stream.setMaximumDelay(delay) }
        if arguments.value("retries") != nil {
            try stream.setReconnection(initialDelay: MediaTime(value: 1, timescale: 10), maximumDelay: MediaTime(value: 1, timescale: 2),
                                       maximumAttempts: try arguments.integer("retries", default: 0, in: 0...1_000_000))
        }
        try stream.setRecordingURL(record)
        stream.adaptsBitRate = arguments.has("adaptive-bitrate")

        let camera = try DeviceLookup.find(arguments.value("device"), mediaType: .video, looping: false, pacing: .realTime)
        let microphone = arguments.has("no-audio") ? nil
            : try DeviceLookup.microphone(for: camera, named: arguments.value("audio-device"), pacing: .realTime)
        let session = CaptureSession()
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: camera))
        if let microphone { try session.addInput(CaptureDeviceInput(device: microphone)) }
        try session.setSessionPreset(preset)
        try session.addOutput(stream)
        try session.commitConfiguration()

        let stop = DispatchSemaphore(value: 0)
        signal(SIGXFSZ, SIG_IGN)
        let interrupt = SignalWatcher(signals: [SIGINT, SIGTERM]) { stop.signal() }
        defer { interrupt.cancel() }
        let sessionEvents = session.events
        let ends = Task {
            for await event in sessionEvents {
                if case .deviceReachedEnd = event { stop.signal() }
            }
        }
        defer { ends.cancel() }
        // Subscribed before the start, so no event passes unseen.
        let report = StreamReport(destinations: destinations.count, recording: record != nil)
        let events = stream.events
        let watcher = Task {
            for await event in events {
                FileHandle.standardError.write(Data("\r\u{1B}[K\(name): \(event)\n".utf8))
                report.note(event)
                if report.isOver { stop.signal() }
            }
        }
        try session.startRunning()
        let started = MediaTime.now
        let progress = !arguments.has("quiet") && isatty(STDERR_FILENO) == 1
        while stop.wait(timeout: .now() + 0.5) == .timedOut {
            let elapsed = MediaTime.now - started
            if let duration, elapsed >= duration { break }
            if progress { FileHandle.standardError.write(Data(statusLine(stream, elapsed: elapsed).utf8)) }
        }
        if progress { FileHandle.standardError.write(Data("\n".utf8)) }
        try? session.stopRunning()
        // The destinations drain and end, the recording finishes: then every statistic is final.
        _ = report.waitForEnd(timeout: 10)
        watcher.cancel()
        let final = stream.statistics
        let frames = stream.encodedVideoFrameCount, dropped = stream.droppedSampleCount
        if arguments.has("json") {
            Console.print(json(final, frames: frames, dropped: dropped, record: record, report: report))
        } else {
            for item in final {
                let link = item.roundTripTime.map { String(format: ", round trip %.1f ms, %d retransmitted", $0.seconds * 1000, item.retransmittedPackets ?? 0) }
                Console.print(String(format: "%@: %d frames sent, %d dropped, %d reconnects, %lld bytes", item.destination.description,
                                     item.framesSent, item.framesDropped, item.reconnects, item.bytesSent) + (link ?? ""))
            }
            if let record { Console.print(String(format: "%@: %d frames, %d dropped", record.path, frames, dropped)) }
        }
        if let error = report.recordingError { throw error }
        if let error = report.lastGiveUp, report.allGaveUp { throw error }
        return .success
    }

    /// What the events said: which destinations ended (and why), how the recording ended.
    private final class StreamReport: Sendable {
        private struct Counts {
            var ended = 0
            var gaveUp = 0
            var lastGiveUp: CaptureError?
            var recordingDone = false
            var recordingError: CaptureError?
        }

        private let destinations: Int
        private let recording: Bool
        private let counts = Mutex(Counts())
        private let over = DispatchSemaphore(value: 0)

        init(destinations: Int, recording: Bool) {
            self.destinations = destinations
            self.recording = recording
        }

        func note(_ event: StreamEvent) {
            let done = counts.withLock { counts -> Bool in
                switch event {
                case .ended(_, let error):
                    counts.ended += 1
                    if let error {
                        counts.gaveUp += 1
                        counts.lastGiveUp = error
                    }
                case .recordingFinished(_, let error):
                    counts.recordingDone = true
                    counts.recordingError = error
                default: return false
                }
                return counts.ended == destinations && (counts.recordingDone || !recording)
            }
            if done { over.signal() }
        }

        /// Every destination gave up (nothing is being sent any more).
        var isOver: Bool { counts.withLock { $0.gaveUp == destinations } }
        var allGaveUp: Bool { isOver }
        var lastGiveUp: CaptureError? { counts.withLock { $0.lastGiveUp } }
        var recordingError: CaptureError? { counts.withLock { $0.recordingError } }

        /// Waits until every destination ended and the recording finished.
        func waitForEnd(timeout seconds: Double) -> Bool { over.wait(timeout: .now() + seconds) == .success }
    }

    /// A bit rate: `2500k`, `4M`, `800000`.
    static func bits(_ text: String?) throws(UsageError) -> Int? {
        guard let text = text?.lowercased() else { return nil }
        let multiplier = text.hasSuffix("k") ? 1_000.0 : text.hasSuffix("m") ? 1_000_000.0 : 1
        guard let number = Double(multiplier == 1 ? text : String(text.dropLast())), number > 0 else {
            throw UsageError("--bitrate must be a bit rate like 2500k, 4M or 800000, not '\(text)'")
        }
        return Int(number * multiplier)
    }

    private static func statusLine(_ stream: CaptureStreamOutput, elapsed: MediaTime) -> String {
        let statistics = stream.statistics
        let seconds = elapsed.seconds
        let fps = seconds > 0 ? Double(stream.encodedVideoFrameCount) / seconds : 0
        let kbits = statistics.map(\.bitRate).max() ?? 0
        // SRT's round trip: the slowest link's, the one a viewer waits on.
        let roundTrip = statistics.compactMap(\.roundTripTime).max().map { String(format: " rtt %.0f ms ", $0.seconds * 1000) } ?? ""
        return String(format: "\r\u{1B}[K%7.1f s  %5.1f fps  %6d kbit/s  dropped %d  reconnects %d ", seconds, fps, kbits / 1000,
                      statistics.map(\.framesDropped).reduce(0, +), statistics.map(\.reconnects).reduce(0, +)) + roundTrip
    }

    private static func json(_ statistics: [StreamStatistics], frames: Int, dropped: Int, record: URL?, report: StreamReport) -> String {
        var object: [String: Any] = [
            "destinations": statistics.map { item -> [String: Any] in
                ["url": item.destination.description, "framesSent": item.framesSent, "framesDropped": item.framesDropped,
                 "reconnects": item.reconnects, "bytesSent": item.bytesSent,
                 "latency": item.latency.map(\.seconds) ?? NSNull(), "roundTripTime": item.roundTripTime.map(\.seconds) ?? NSNull(),
                 "retransmittedPackets": item.retransmittedPackets ?? NSNull()]
            },
            "framesEncoded": frames,
            "samplesDropped": dropped,
            "peakMemoryBytes": peakMemoryBytes(),
        ]
        if let record { object["recording"] = ["path": record.path, "error": report.recordingError.map { $0.message as Any } ?? NSNull()] }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// The process's peak resident memory (VmHWM), in bytes.
    private static func peakMemoryBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes * 1024
    }
}
