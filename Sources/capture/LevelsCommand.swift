import CaptureKit
import CommandLineSupport
import Foundation
import Synchronization

/// `capture levels`: live per-channel meters of a microphone.
enum LevelsCommand: Command {
    static let name = "levels"
    static let summary = "show live audio level meters of a microphone"
    /// What the command accepts; also the option lines of ``usage``.
    static let options: [CommandOption] = [
        .value("audio-device", "ID", "microphone unique ID or name (see 'capture devices'), alsa:PCM for\nany ALSA PCM (alsa:plughw:1,0), or file:PATH; default microphone"),
        .value("duration", "S", "stop after S (10s, 500ms, 2m); default: until interrupted"),
        .flag("json", "print only the final levels, as JSON"),
    ]

    static let usage = """
        usage: capture levels [--audio-device ID] [--duration S] [--json]

        Shows each channel's average power and peak hold in dBFS as text bars, ten times a
        second, until Ctrl-C or the duration ends. Levels are referenced to a full-scale sine
        (AES17): a sine peaking at -6 dBFS reads -6 dB on both meters. Silence reads -160 dB.

        \(CommandOption.helpText(for: options))
        """

    /// One channel's levels.
    struct ChannelLevels: Encodable {
        var channel: Int
        var averagePowerLevel: Float
        var peakHoldLevel: Float
    }

    /// The final report (`--json`).
    struct Report: Encodable {
        var device: String
        var format: String
        var seconds: Double
        var channels: [ChannelLevels]
    }

    /// The meter's range: bars start at −60 dBFS.
    static let floor: Float = -60
    static let barWidth = 40

    static func run(_ words: [String]) throws -> ExitStatus {
        let arguments = try Arguments(words, accepting: options)
        guard arguments.positional.isEmpty else { throw UsageError("unexpected argument '\(arguments.positional[0])'") }
        let duration = try arguments.duration("duration")
        let json = arguments.has("json")

        let device = try DeviceLookup.find(arguments.value("audio-device"), mediaType: .audio)
        let session = CaptureSession()
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: device))
        // The meters live on the connection; an output is what makes one.
        let output = CaptureAudioDataOutput()
        try session.addOutput(output)
        try session.commitConfiguration()
        guard let connection = output.connection(with: .audio) else {
            throw CaptureError(.internalError, "no audio connection to \(device.localizedName)")
        }

        let interrupted = Atomic<Bool>(false)
        let watcher = SignalWatcher(signals: [SIGINT, SIGTERM]) { interrupted.store(true, ordering: .relaxed) }
        defer { watcher.cancel() }
        let failure = Mutex<CaptureError?>(nil)
        let events = Task {
            for await event in session.events {
                if case .runtimeError(let error) = event { failure.withLock { $0 = error } }
            }
        }
        defer { events.cancel() }

        try session.startRunning()
        let started = Date()
        let interactive = isatty(STDOUT_FILENO) == 1
        if !json { Console.print("\(device.localizedName) (\(device.activeFormat)); Ctrl-C stops") }
        var drawn = 0
        var lastPrinted = Date.distantPast
        while !interrupted.load(ordering: .relaxed), failure.withLock({ $0 }) == nil {
            let elapsed = Date().timeIntervalSince(started)
            if let duration, elapsed >= duration.seconds { break }
            // A display refresh, not synchronisation: the meters are read ten times a second.
            Thread.sleep(forTimeInterval: 0.1)
            guard !json else { continue }
            let lines = connection.audioChannels.enumerated().map { meterLine(channel: $0.offset + 1, $0.element) }
            if interactive {
                // Redraw in place: up over the previous meters, then overwrite them.
                if drawn > 0 { FileHandle.standardOutput.write(Data("\u{1B}[\(drawn)A".utf8)) }
                for line in lines { Console.print("\u{1B}[2K" + line) }
                drawn = lines.count
            } else if Date().timeIntervalSince(lastPrinted) >= 0.5, !lines.isEmpty {
                lines.forEach(Console.print)
                lastPrinted = Date()
            }
        }
        try session.stopRunning()
        if let error = failure.withLock({ $0 }) { throw error }
        let channels = connection.audioChannels.enumerated().map {
            ChannelLevels(channel: $0.offset + 1, averagePowerLevel: $0.element.averagePowerLevel, peakHoldLevel: $0.element.peakHoldLevel)
        }
        guard !channels.isEmpty else {
            throw CaptureError(.deviceDisconnected, "\(device.localizedName) delivered no audio")
        }
        let report = Report(device: device.localizedName, format: device.activeFormat.description,
                            seconds: Date().timeIntervalSince(started), channels: channels)
        if json { try Console.printJSON(report) }
        return .success
    }

    /// `ch1 [##########-----|------] avg  -12.0 dB  peak  -6.0 dB`: the bar fills to the average,
    /// `|` marks the peak hold.
    static func meterLine(channel: Int, _ levels: CaptureAudioChannel) -> String {
        func column(_ level: Float) -> Int {
            Int((max(floor, min(0, level)) - floor) / -floor * Float(barWidth))
        }
        let filled = column(levels.averagePowerLevel)
        let peak = min(barWidth - 1, column(levels.peakHoldLevel))
        var bar = Array(repeating: Character("-"), count: barWidth)
        for index in 0..<filled { bar[index] = "#" }
        if levels.peakHoldLevel > floor { bar[peak] = "|" }
        return String(format: "ch%-2d [%@] avg %7.1f dB  peak %7.1f dB", channel, String(bar),
                      levels.averagePowerLevel, levels.peakHoldLevel)
    }
}
