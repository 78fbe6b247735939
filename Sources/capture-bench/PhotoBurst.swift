import CaptureKit
import Dispatch
import Foundation
import Synchronization

/// The burst part of `photo-1080p`: photos requested all at once from a running real-time
/// 1080p30 session — each of the newest frame (zero shutter lag), so the burst is its encodes —
/// timed from the first request to the last `didFinishProcessingPhoto`, with the output encoding
/// one photo at a time and two (its default on two cores), in interleaved rounds.
enum PhotoBurst {
    static let rounds = 3

    /// One burst size's figures for one number of encoders: its median round by wall time.
    struct Result {
        var encoders: Int
        var row: Measurement
    }

    static func measure(photos: Int, frames: [PixelBuffer], encoders: [Int]) throws -> [Result] {
        try PhotoLatency.withSession(frames: frames) { _, output in
            var runs: [Int: [Measurement]] = [:]
            for _ in 0..<rounds {
                for count in encoders {
                    output.maximumConcurrentEncodes = count
                    let counter = Counter()
                    // One photo first, outside the figures: it starts a worker and warms the encoder.
                    output.capturePhoto(with: CapturePhotoSettings(), delegate: counter, queue: counter.queue)
                    try counter.wait(for: 1)
                    let before = ResourceSnapshot.now()
                    for _ in 0..<photos { output.capturePhoto(with: CapturePhotoSettings(), delegate: counter, queue: counter.queue) }
                    try counter.wait(for: 1 + photos)
                    let after = ResourceSnapshot.now()
                    runs[count, default: []].append(Measurement(
                        label: "CaptureKit burst of \(photos) photos at once, \(count) encoder\(count == 1 ? "" : "s")", tool: "CaptureKit",
                        frames: photos, delivered: nil, dropped: nil, unaccounted: nil, wallSeconds: after.wallSeconds(since: before),
                        cpuSeconds: after.cpuSeconds(since: before), peakRSSBytes: nil, peakRSSScope: "process", cpuRatio: nil))
                }
            }
            return encoders.compactMap { count in
                guard let all = runs[count], !all.isEmpty else { return nil }
                return Result(encoders: count, row: all.sorted { $0.wallSeconds < $1.wallSeconds }[all.count / 2])
            }
        }
    }

    /// Counts finished requests (`didFinishCapture`, the last call of each); a failed one fails
    /// the burst.
    private final class Counter: CapturePhotoCaptureDelegate {
        let queue = DispatchQueue(label: "capture-bench.burst")
        private struct State {
            var finished = 0
            var failure: (any Error)?
            var waiting: (count: Int, semaphore: DispatchSemaphore)?
        }
        private let state = Mutex(State())

        func photoOutput(_ output: CapturePhotoOutput, didFinishProcessingPhoto photo: CapturePhoto, error: (any Error)?) {
            guard let error else { return }
            state.withLock { state in if state.failure == nil { state.failure = error } }
        }

        func photoOutput(_ output: CapturePhotoOutput, didFinishCaptureFor resolvedSettings: CaptureResolvedPhotoSettings, error: (any Error)?) {
            let ready = state.withLock { state -> DispatchSemaphore? in
                state.finished += 1
                if let error, state.failure == nil { state.failure = error }
                guard let waiting = state.waiting, state.finished >= waiting.count else { return nil }
                state.waiting = nil
                return waiting.semaphore
            }
            ready?.signal()
        }

        /// Waits until `count` photos have finished; throws after 60 s or if one failed.
        func wait(for count: Int) throws {
            let semaphore = DispatchSemaphore(value: 0)
            let done = state.withLock { state -> Bool in
                if state.finished >= count { return true }
                state.waiting = (count, semaphore)
                return false
            }
            guard done || semaphore.wait(timeout: .now() + .seconds(60)) == .success else { throw BenchError("the burst did not finish within 60 s") }
            if let failure = state.withLock({ $0.failure }) { throw BenchError("a photo of the burst failed: \(failure)") }
        }
    }
}
