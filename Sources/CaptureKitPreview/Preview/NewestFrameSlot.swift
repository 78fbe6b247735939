import CaptureKit
import Foundation

/// Hands video frames from a device thread to one consumer thread keeping only the newest: a
/// frame not yet taken is replaced (and counted) by the next, so a slow consumer never holds
/// up capture and never falls behind.
final class NewestFrameSlot: @unchecked Sendable {
    // Unchecked Sendable: its state is guarded by an NSCondition (a wait Mutex cannot do).
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var frame: SampleBuffer?
    private var replaced = 0
    private var isWoken = false

    /// Puts `sample` in the slot; never blocks beyond a short lock.
    func put(_ sample: SampleBuffer) {
        condition.lock()
        if frame != nil { replaced += 1 }
        frame = sample
        condition.signal()
        condition.unlock()
    }

    /// The waiting frame, waiting up to `timeout` seconds for one; nil when none came or
    /// ``wake()`` was called.
    func take(timeout: Double) -> SampleBuffer? {
        condition.lock()
        defer { condition.unlock() }
        if frame == nil, !isWoken { _ = condition.wait(until: Date(timeIntervalSinceNow: timeout)) }
        isWoken = false
        defer { frame = nil }
        return frame
    }

    /// Ends a wait in ``take(timeout:)`` at once.
    func wake() {
        condition.lock()
        isWoken = true
        condition.broadcast()
        condition.unlock()
    }

    /// Frames replaced before anyone took them.
    var replacedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return replaced
    }
}
