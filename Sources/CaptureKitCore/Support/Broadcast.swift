import Synchronization

/// Fans values out to any number of `AsyncStream`s — a session's `events`, an output's
/// `sampleBuffers`, … — the one implementation of them all: each ``makeStream(bufferingPolicy:)``
/// makes an independent stream, ``yield(_:)`` sends to every stream, ``finish()`` ends them all.
/// A stream leaves by itself when its consumer stops iterating or drops it; `whenEmpty` runs
/// after the last one left (a connection hub stops watching `/dev`).
package final class Broadcast<Element: Sendable>: Sendable {
    private struct Streams {
        package var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
        package var nextID = 0
        package var isFinished = false
    }

    private let streams = Mutex(Streams())
    /// The number of streams, kept beside the lock so that a device thread asking whether
    /// anyone listens takes no lock.
    private let count = Atomic<Int>(0)
    private let whenEmpty: (@Sendable () -> Void)?

    package init(whenEmpty: (@Sendable () -> Void)? = nil) {
        self.whenEmpty = whenEmpty
    }

    deinit { finish() }

    /// A new stream of what is yielded from now on. After ``finish()``, a stream that ends at
    /// once.
    package func makeStream(bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy = .unbounded) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: bufferingPolicy)
        let id = streams.withLock { streams -> Int? in
            guard !streams.isFinished else { return nil }
            streams.nextID += 1
            streams.continuations[streams.nextID] = continuation
            count.store(streams.continuations.count, ordering: .relaxed)
            return streams.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        return stream
    }

    /// Whether any stream is listening.
    package var hasStreams: Bool { count.load(ordering: .relaxed) > 0 }

    /// Sends `value` to every stream; returns how many had to drop it (or an older value) because
    /// their buffer was full.
    @discardableResult
    package func yield(_ value: Element) -> Int {
        // Most outputs have no stream: a device thread then pays no lock, no copy and no generic
        // metadata lookup (unspecialized across modules, they took a third of an audio output's
        // thread per buffer).
        hasStreams ? yieldToStreams(value) : 0
    }

    @inline(never)
    private func yieldToStreams(_ value: Element) -> Int {
        let continuations = streams.withLock { Array($0.continuations.values) }
        var dropped = 0
        for continuation in continuations {
            if case .dropped = continuation.yield(value) { dropped += 1 }
        }
        return dropped
    }

    /// Ends every stream, and every stream made from now on.
    package func finish() {
        let continuations = streams.withLock { streams -> [AsyncStream<Element>.Continuation] in
            streams.isFinished = true
            defer {
                streams.continuations.removeAll()
                count.store(0, ordering: .relaxed)
            }
            return Array(streams.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    private func remove(_ id: Int) {
        let emptied = streams.withLock { streams -> Bool in
            guard streams.continuations.removeValue(forKey: id) != nil else { return false }
            count.store(streams.continuations.count, ordering: .relaxed)
            return streams.continuations.isEmpty
        }
        if emptied { whenEmpty?() }
    }
}
