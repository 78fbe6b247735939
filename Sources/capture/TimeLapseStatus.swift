import CaptureKit
import Foundation
import Synchronization

/// The live status line of `capture timelapse`: shots, missed slots, frames seen and the time
/// to the next slot on the schedule.
final class TimeLapseStatus: Sendable {
    /// Slot 0's time, once the first frame laid the grid.
    private let origin = Mutex<MediaTime?>(nil)

    func started(at time: MediaTime) { origin.withLock { $0 = time } }

    /// The line, starting with a carriage return so it rewrites itself.
    func line(_ statistics: CaptureTimeLapseOutput.Statistics, interval: MediaTime) -> String {
        var next = "waiting for the first frame"
        if let origin = origin.withLock({ $0 }) {
            let elapsed = (MediaTime.now - origin).seconds
            let step = interval.seconds
            let remaining = elapsed < 0 ? -elapsed : step - elapsed.truncatingRemainder(dividingBy: step)
            next = String(format: "next slot in %.1f s", remaining)
        }
        return String(format: "\rshots %d  missed %d  frames %d  %@ ", statistics.shots, statistics.missedSlots, statistics.framesSeen, next)
    }
}
