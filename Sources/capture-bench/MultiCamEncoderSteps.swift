import CaptureKit
import Synchronization

/// Counts the preset steps CaptureKit's live recordings take during a `multicam` row, from the
/// lines they log (`movie NAME: encoder behind, preset veryfast -> superfast`, as
/// `capture record --verbose` prints them): a step to a faster preset means an encoder fell
/// behind and did less work per frame from then on, so the row's CPU per frame is not the same
/// job's as a row that kept up.
///
/// While it listens it is ``CaptureLog``'s handler (up to `.info`); ``stop()`` silences the log
/// again, as capture-bench has it otherwise.
final class MultiCamEncoderSteps: Sendable {
    /// Steps counted so far.
    struct Counts: Sendable {
        /// Steps to a faster preset ("encoder behind").
        var faster = 0
        /// Steps back towards the configured preset ("keeping up"), the start's superfast →
        /// veryfast after 3 s included.
        var slower = 0
    }

    private let counts = Mutex(Counts())

    /// Starts counting: installs the handler.
    init() {
        // Held by the log until stop() takes the handler away.
        CaptureLog.setHandler(upTo: .info) { [self] _, source, message in
            guard source == "capturekit", message.contains(" preset ") else { return }
            if message.contains("encoder behind") {
                self.counts.withLock { $0.faster += 1 }
            } else if message.contains("encoder keeping up") {
                self.counts.withLock { $0.slower += 1 }
            }
        }
    }

    /// Stops counting (removes the handler) and returns the counts.
    func stop() -> Counts {
        CaptureLog.setHandler(nil)
        return counts.withLock { $0 }
    }
}
