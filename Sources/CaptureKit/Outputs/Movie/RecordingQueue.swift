import Foundation

/// The hand-over from device threads to a recording's encoder thread: samples and control
/// commands in arrival order. Deeper than a data output's queue (a movie keeps every frame it
/// can); when full, a live device's sample is refused and counted, while a device that is not
/// live (an unpaced file) is held back until there is room, so offline recording loses nothing.
final class RecordingQueue: @unchecked Sendable {
    // Unchecked Sendable: its state is guarded by an NSCondition (a wait Mutex cannot do).
    enum Item: Sendable {
        case sample(SampleBuffer)
        case pause(at: MediaTime)
        case resume(at: MediaTime)
        case stop(at: MediaTime, reason: MovieRecording.StopReason)
        /// A device went away and the recording goes on without it (`.continueRecording`).
        case deviceLost(video: Bool)
    }

    private let condition = NSCondition()
    // Guarded by `condition`. Slots before `head` are nil: a popped sample must not stay
    // referenced until the array is compacted (up to 256 items later), or every 1080p frame
    // and its converted copy would be held that long, hundreds of megabytes at full speed.
    private var items: [Item?] = []
    private var head = 0
    private var queuedVideo = 0
    private var queuedAudio = 0
    private var closed = false

    /// About 1.5 s of 30 fps video and 5 s of 10 ms audio buffers.
    static let videoCapacity = 45
    static let audioCapacity = 500
    /// Video frames queued for a producer that is held back rather than refused (an unpaced
    /// file). Depth absorbs a live camera's frames while the encoder is busy; a held-back
    /// producer just waits, so a few frames keep the encoder fed, and 45 raw frames would only
    /// hold memory (180 MiB of 1080p YUYV) without changing what is recorded.
    static let heldBackVideoCapacity = 8

    enum PushResult { case queued, full, closed }

    /// Queues a sample; `.full` when a live device's sample had to be refused, `.closed` once
    /// the recording is over.
    func push(_ sample: SampleBuffer, holdBack: Bool) -> PushResult {
        let video = sample.mediaType == .video
        condition.lock()
        defer { condition.unlock() }
        while !closed, isFull(video: video, holdBack: holdBack) {
            guard holdBack else { return .full }
            condition.wait()
        }
        guard !closed else { return .closed }
        if video { queuedVideo += 1 } else { queuedAudio += 1 }
        items.append(.sample(sample))
        condition.broadcast()
        return .queued
    }

    private func isFull(video: Bool, holdBack: Bool) -> Bool {
        video ? queuedVideo >= (holdBack ? Self.heldBackVideoCapacity : Self.videoCapacity) : queuedAudio >= Self.audioCapacity
    }

    /// Video frames waiting: whether the encoder has newer frames than the one it holds.
    var queuedVideoCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return queuedVideo
    }

    /// Queues a command; never refused before `close()`.
    func push(_ item: Item) {
        condition.lock()
        if !closed {
            items.append(item)
            condition.broadcast()
        }
        condition.unlock()
    }

    /// The next item, or nil when nothing arrives before `deadline`.
    func pop(before deadline: Date) -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count {
            if closed || !condition.wait(until: deadline) { return nil }
        }
        guard let item = items[head] else { preconditionFailure("RecordingQueue: the slot at head is empty (only popped slots are)") }
        items[head] = nil
        head += 1
        if head > 256, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        if case .sample(let sample) = item {
            if sample.mediaType == .video { queuedVideo -= 1 } else { queuedAudio -= 1 }
        }
        condition.broadcast()
        return item
    }

    /// Ends the queue: waiting producers return, further pushes are refused.
    func close() {
        condition.lock()
        closed = true
        items.removeAll()
        head = 0
        condition.broadcast()
        condition.unlock()
    }
}
