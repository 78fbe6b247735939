import Foundation

/// The hand-over from device threads to a recording's encoder thread: samples and control
/// commands in arrival order. Bounded, and deeper than a data output's queue (a movie keeps
/// every frame it can): when full, a live device's sample is refused — only a note of it takes
/// its place (``Refusals``, one per run, so a stalled encoder cannot make the queue grow),
/// which the encoder thread counts as dropped if the sample fell inside the recording — while
/// a device that is not live (an unpaced file) is held back until there is room, so offline
/// recording loses nothing.
final class RecordingQueue: @unchecked Sendable {
    // Unchecked Sendable: its state is guarded by an NSCondition (a wait Mutex cannot do).
    enum Item: Sendable {
        case sample(SampleBuffer)
        /// Samples of one kind the full queue refused, in the place of the first of them.
        case refused(Refusals)
        /// Samples the device skipped (never captured or lost) just after the last one it
        /// delivered (`deviceDidDrop`).
        case skipped(count: Int, video: Bool)
        case pause(at: MediaTime)
        case resume(at: MediaTime)
        case stop(at: MediaTime, reason: MovieRecording.StopReason)
        /// A device went away and the recording goes on without it (`.continueRecording`).
        case deviceLost(video: Bool)
    }

    /// A run of samples of one kind that the full queue refused, with no sample of that kind
    /// and no command queued between them: how many, and the capture times of the first and
    /// the last (the ones between are evenly spaced, as a device's frames are).
    struct Refusals: Sendable, Equatable {
        var video: Bool
        var count: Int
        var first: MediaTime
        var last: MediaTime
        /// The last refused sample's duration.
        var duration: MediaTime

        /// The capture time of the `index`th refused sample.
        func time(at index: Int) -> MediaTime {
            guard count > 1, index > 0 else { return first }
            guard index < count - 1 else { return last }
            let span = last - first
            return first + MediaTime(value: span.value * Int64(index) / Int64(count - 1), timescale: span.timescale)
        }
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
    /// Where the run of refusals still growing for each kind sits in `items` (nil once a sample
    /// of that kind or a command is queued after it, or it was popped).
    private var openVideoRefusals: Int?
    private var openAudioRefusals: Int?

    /// About 1.5 s of 30 fps video and 5 s of 10 ms audio buffers.
    static let videoCapacity = 45
    static let audioCapacity = 500
    /// Video frames queued for a producer that is held back rather than refused (an unpaced
    /// file). Depth absorbs a live camera's frames while the encoder is busy; a held-back
    /// producer just waits, so a few frames keep the encoder fed, and 45 raw frames would only
    /// hold memory (180 MiB of 1080p YUYV) without changing what is recorded.
    static let heldBackVideoCapacity = 8

    enum PushResult { case queued, full, closed }

    /// Queues a sample; `.full` when a live device's sample had to be refused (noted in its
    /// place, see ``Item/refused(_:)``), `.closed` once the recording is over.
    func push(_ sample: SampleBuffer, holdBack: Bool) -> PushResult {
        let video = sample.mediaType == .video
        condition.lock()
        defer { condition.unlock() }
        while !closed, isFull(video: video, holdBack: holdBack) {
            guard holdBack else {
                refuse(sample, video: video)
                return .full
            }
            condition.wait()
        }
        guard !closed else { return .closed }
        if video {
            queuedVideo += 1
            openVideoRefusals = nil
        } else {
            queuedAudio += 1
            openAudioRefusals = nil
        }
        items.append(.sample(sample))
        condition.broadcast()
        return .queued
    }

    /// Notes a refused sample: it joins the open run of its kind, or starts one. Under the lock.
    private func refuse(_ sample: SampleBuffer, video: Bool) {
        let time = sample.presentationTimeStamp
        if let index = video ? openVideoRefusals : openAudioRefusals, case .refused(var run)? = items[index] {
            run.count += 1
            run.last = time
            run.duration = sample.duration
            items[index] = .refused(run)
        } else {
            items.append(.refused(Refusals(video: video, count: 1, first: time, last: time, duration: sample.duration)))
            if video { openVideoRefusals = items.count - 1 } else { openAudioRefusals = items.count - 1 }
        }
        condition.broadcast()
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

    /// Queues a command (or a device's skip report); never refused before `close()`. Refusals
    /// after it start runs of their own, so each stays on its side of the command.
    func push(_ item: Item) {
        condition.lock()
        if !closed {
            items.append(item)
            openVideoRefusals = nil
            openAudioRefusals = nil
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
        // A run handed to the encoder thread is closed: later refusals start a new one.
        if openVideoRefusals == head { openVideoRefusals = nil }
        if openAudioRefusals == head { openAudioRefusals = nil }
        head += 1
        if head > 256, head * 2 > items.count {
            items.removeFirst(head)
            openVideoRefusals = openVideoRefusals.map { $0 - head }
            openAudioRefusals = openAudioRefusals.map { $0 - head }
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
        openVideoRefusals = nil
        openAudioRefusals = nil
        condition.broadcast()
        condition.unlock()
    }
}
