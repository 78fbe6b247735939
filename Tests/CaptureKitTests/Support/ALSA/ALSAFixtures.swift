import Foundation
import Synchronization
import Testing
@testable import CaptureKit

/// Daemon-less ALSA capture devices for tests: PCMs of ALSA's `file` plugin reading a tone made
/// by `sox` (a tool nobody here wrote) over the `null` plugin, defined in a configuration file
/// this process adds to `ALSA_CONFIG_PATH` (after the system's `alsa.conf`, so every other PCM
/// stays as it was).
enum ALSAFixtures {
    private static let configurations = Mutex<[String]>([])

    /// The PCM name of a `file`-plugin microphone playing `seconds` of a `frequency` Hz sine at
    /// `level` dBFS (peak), raw s16 48 kHz mono. Made once per process and reused.
    static func toneMicrophone(frequency: Int, level: Double = -6, seconds: Int = 6) throws -> String {
        let tag = "\(frequency)hz\(Int(-level))db\(seconds)s"
        let tone = try FileFixtures.file("alsa-tone-\(tag).raw") { path in
            try requireTool("sox")
            let volume = String(format: "%.6f", pow(10, level / 20))
            try FileFixtures.run("sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed", "-t", "raw", path,
                                         "synth", "\(seconds)", "sine", "\(frequency)", "vol", volume])
        }
        let name = "capturekit_tone_\(tag)"
        let configuration = try FileFixtures.file("alsa-\(name).conf") { path in
            let text = """
                pcm.\(name) {
                    type file
                    slave.pcm "null"
                    file "/dev/null"
                    infile "\(tone.path)"
                    format "raw"
                }

                """
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
        configurations.withLock { files in
            guard !files.contains(configuration.path) else { return }
            files.append(configuration.path)
            // libasound re-reads its configuration when this list changes.
            setenv("ALSA_CONFIG_PATH", (["/usr/share/alsa/alsa.conf"] + files).joined(separator: ":"), 1)
        }
        return name
    }

    /// Throws when `tool` is not installed (which fails the test: CI installs every tool).
    static func requireTool(_ tool: String) throws {
        let found = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
        if !found { throw ToolFailure(description: "\(tool) is not installed; scripts/install-deps.sh installs it") }
    }
}
