import Foundation
import Testing

// What a suite needs beyond the process itself, as Swift Testing tags, and the gate that lets a
// run leave those suites out. `swift test` cannot filter by tag on the command line, so the
// fast loop (scripts/test-fast.sh) names the tags to leave out in CAPTUREKIT_TEST_EXCLUDE and
// every top-level suite carries `.excludable`, which skips a test whose tags (its own and its
// parents') include an excluded one. `scripts/test.sh` excludes nothing.

extension Tag {
    /// Runs capture sessions or device streams paced by the wall clock (paced virtual or file
    /// devices, real cameras and microphones): seconds of real time, sensitive to load only in
    /// what the library reports (drops), never in what it promises.
    @Tag static var realTime: Self
    /// Starts private PulseAudio or PipeWire daemons (Support/AudioDaemons.swift).
    @Tag static var soundServer: Self
    /// Runs other programs: ffprobe/ffmpeg as oracles, the `capture` command line, Xvfb, exiftool.
    @Tag static var childProcess: Self
    /// Drives headless Chromium.
    @Tag static var browser: Self
    /// Runs only inside the V4L2/ALSA test VM (scripts/vm/run.sh).
    @Tag static var vm: Self
}

/// Skips a test whose tags include one named in `CAPTUREKIT_TEST_EXCLUDE` (comma-separated tag
/// names, e.g. `realTime,soundServer`). Put it on every top-level suite: it applies to everything
/// nested inside.
struct ExcludableByTag: SuiteTrait, TestTrait {
    var isRecursive: Bool { true }

    /// The tags this run leaves out.
    static let excluded: Set<String> = Set(
        (ProcessInfo.processInfo.environment["CAPTUREKIT_TEST_EXCLUDE"] ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })

    func prepare(for test: Test) async throws {
        guard !Self.excluded.isEmpty else { return }
        let names = Set(test.tags.map(\.name))
        if let hit = names.intersection(Self.excluded).sorted().first {
            try Test.cancel("needs \(hit), excluded by CAPTUREKIT_TEST_EXCLUDE")
        }
    }
}

extension Trait where Self == ExcludableByTag {
    /// Skipped when `CAPTUREKIT_TEST_EXCLUDE` names one of the test's tags.
    static var excludable: Self { ExcludableByTag() }
}

extension Tag {
    /// The tag's name as written in `CAPTUREKIT_TEST_EXCLUDE` (`realTime`, `vm`, …).
    var name: String {
        // Tag's description is ".realTime" for a tag declared with @Tag.
        let text = String(describing: self)
        return text.hasPrefix(".") ? String(text.dropFirst()) : text
    }
}
