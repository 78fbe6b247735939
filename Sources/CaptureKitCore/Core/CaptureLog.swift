import Foundation
import Synchronization

/// Where the diagnostics of the C libraries under CaptureKit go (FFmpeg's log lines): nowhere by
/// default — what went wrong reaches the application once, as a typed ``CaptureError`` — or to a
/// handler the application sets (the `capture` tool's `--verbose` prints them to stderr). Never
/// to stderr on their own: that belongs to the application.
///
/// ```swift
/// CaptureLog.setHandler { level, source, message in print("[\(source)] \(message)") }
/// ```
public enum CaptureLog {
    /// How severe a line is.
    public enum Level: Int, Sendable, Comparable {
        /// Something failed (it also arrives once as a ``CaptureError`` where it matters).
        case error
        /// Something unexpected that did not stop the work.
        case warning
        /// What happened, for `--verbose` output.
        case info

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Receives one line: its level, the library it came from (`"ffmpeg"`) and the text (no
    /// trailing newline). Called on whatever thread the library logged from.
    public typealias Handler = @Sendable (_ level: Level, _ source: String, _ message: String) -> Void

    private static let state = Mutex<(handler: Handler?, level: Level)>((nil, .warning))
    private static let secrets = Mutex<Set<String>>([])

    /// Registers a secret (a stream key, a passphrase, a URL password) that no line may show:
    /// from now on ``redacted(_:)`` — and so every line a handler receives — writes `***` in its
    /// place. C libraries log URLs and server replies that may carry it.
    package static func addSecret(_ secret: String) {
        // Shorter strings would blank out ordinary words.
        guard secret.count >= 3 else { return }
        secrets.withLock { _ = $0.insert(secret) }
    }

    /// `text` with every registered secret replaced by `***`.
    package static func redacted(_ text: String) -> String {
        let known = secrets.withLock { $0 }
        guard !known.isEmpty else { return text }
        // Longest first: a secret containing another is replaced whole.
        return known.sorted { $0.count > $1.count }.reduce(text) { $0.replacingOccurrences(of: $1, with: "***") }
    }

    /// Sends lines up to `level` (warnings and errors by default) to `handler`; nil silences
    /// them again.
    public static func setHandler(upTo level: Level = .warning, _ handler: Handler?) {
        state.withLock { $0 = (handler, level) }
    }

    /// Whether a line at `level` would reach a handler (so a library can skip formatting it).
    package static func wants(_ level: Level) -> Bool {
        state.withLock { $0.handler != nil && level <= $0.level }
    }

    package static func emit(_ level: Level, _ source: String, _ message: String) {
        let handler = state.withLock { $0.handler != nil && level <= $0.level ? $0.handler : nil }
        handler?(level, source, redacted(message))
    }
}
