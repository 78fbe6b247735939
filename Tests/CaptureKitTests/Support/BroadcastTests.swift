import Synchronization
import Testing
@testable import CaptureKit

/// The one fan-out behind every `AsyncStream` the library hands out (session events, samples,
/// metadata objects, presented frames, connection events).
@Suite(.excludable)
struct BroadcastTests {
    @Test func everyStreamGetsEveryValueInOrder() async {
        let broadcast = Broadcast<Int>()
        let first = broadcast.makeStream()
        let second = broadcast.makeStream()
        #expect(broadcast.hasStreams)
        for value in 1...3 { #expect(broadcast.yield(value) == 0) }
        broadcast.finish()
        #expect(await collect(first) == [1, 2, 3])
        #expect(await collect(second) == [1, 2, 3])
        #expect(!broadcast.hasStreams)
    }

    @Test func aFullStreamDropsAndSaysSo() async {
        let broadcast = Broadcast<Int>()
        let newest = broadcast.makeStream(bufferingPolicy: .bufferingNewest(1))
        let all = broadcast.makeStream()
        #expect(broadcast.yield(1) == 0)
        #expect(broadcast.yield(2) == 1, "the newest-only stream replaced 1")
        broadcast.finish()
        #expect(await collect(newest) == [2])
        #expect(await collect(all) == [1, 2])
    }

    @Test(.timeLimit(.minutes(1)))
    func aStreamThatEndsLeavesAndTheLastOneLeavingIsTold() async {
        let (emptied, signal) = AsyncStream<Void>.makeStream()
        let broadcast = Broadcast<Int>(whenEmpty: { signal.yield() })
        let reader = Task { [stream = broadcast.makeStream()] in
            var seen: [Int] = []
            for await value in stream {
                seen.append(value)
                if seen.count == 2 { break }
            }
            return seen
        }
        do {
            let dropped = broadcast.makeStream()   // dropped unread at the end of this scope
            _ = dropped
        }
        broadcast.yield(1)
        broadcast.yield(2)
        #expect(await reader.value == [1, 2])
        var told = emptied.makeAsyncIterator()
        await told.next()   // when the reader's stream has gone: the last one
        #expect(!broadcast.hasStreams)
    }

    @Test func afterFinishNewStreamsEndAtOnce() async {
        let broadcast = Broadcast<Int>()
        broadcast.finish()
        let late = broadcast.makeStream()
        broadcast.yield(1)
        #expect(await collect(late).isEmpty)
        #expect(!broadcast.hasStreams)
    }
}

/// Everything `stream` yields until it ends.
private func collect<Element: Sendable>(_ stream: AsyncStream<Element>) async -> [Element] {
    await stream.reduce(into: []) { $0.append($1) }
}
