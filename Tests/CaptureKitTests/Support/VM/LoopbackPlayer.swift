import Foundation
import Glibc
import Testing

/// `aplay` (alsa-utils, not ours) playing raw s16 48 kHz mono into the playback side of the
/// snd-aloop card, so the capture side (`hw:CARD=Loopback,DEV=1`) hears it.
final class LoopbackPlayer {
    /// The capture PCM that hears what the player plays, as discovery names it.
    static let capturePCM = "hw:CARD=Loopback,DEV=1"
    /// The driver's status of the playback substream.
    static let playbackStatus = "/proc/asound/Loopback/pcm0p/sub0/status"

    private let process = Process()

    /// Starts playing `file` and returns once the driver reports the playback substream running.
    init(file: URL) throws {
        try ALSAFixtures.requireTool("aplay")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["aplay", "-q", "-D", "hw:Loopback,0,0", "-t", "raw", "-f", "S16_LE", "-r", "48000", "-c", "1", file.path]
        process.standardError = FileHandle.standardError
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !Self.isRunning() {
            guard process.isRunning, Date() < deadline else {
                stop()
                throw ToolFailure(description: "aplay did not start playing into the loopback card (\(Self.playbackStatus))")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    deinit { stop() }

    /// Stops the player at once. (aplay answers SIGTERM by draining what it has queued: up to
    /// the rest of the file.)
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private static func isRunning() -> Bool {
        ((try? String(contentsOfFile: playbackStatus, encoding: .utf8)) ?? "").contains("state: RUNNING")
    }

    /// A raw file whose sample `i` is `i` modulo 2¹⁶ (as s16): what is captured says which
    /// played frame it is, so frames lost in capture can be counted from the audio itself.
    static func counterFile(seconds: Int) throws -> URL {
        try FileFixtures.file("alsa-counter-\(seconds)s.raw") { path in
            // One cycle of the counter, repeated: a debug build's per-sample loop is slow in the VM.
            let cycle = (0...UInt16.max).map(\.littleEndian).withUnsafeBytes { Data($0) }
            var data = Data()
            while data.count < 48_000 * 2 * seconds { data.append(cycle) }
            try data.prefix(48_000 * 2 * seconds).write(to: URL(fileURLWithPath: path))
        }
    }
}
