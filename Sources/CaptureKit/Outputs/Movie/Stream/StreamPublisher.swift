import Dispatch
import Foundation
import Synchronization

/// One destination of a stream output, on a thread of its own: it connects, sends what its
/// ``StreamPacketQueue`` holds, and when the connection fails or breaks, reconnects after a
/// capped exponential backoff and resumes at a keyframe. The encoder thread only ever queues
/// (``enqueue(_:)`` never blocks): a slow or absent network costs this destination's frames,
/// never the camera's, the recording's or another destination's.
final class StreamPublisher: Sendable {
    /// How a destination retries.
    struct Reconnection: Sendable, Equatable {
        var initialDelay: MediaTime
        var maximumDelay: MediaTime
        /// Attempts after a failure before giving up; nil: for ever.
        var maximumAttempts: Int?

        /// The wait before attempt `attempt` (from 1): doubling from the initial delay, capped.
        func delay(before attempt: Int) -> MediaTime {
            let doubled = initialDelay.seconds * pow(2, Double(min(attempt - 1, 30)))
            return MediaTime(seconds: min(doubled, maximumDelay.seconds), preferredTimescale: 1000)
        }
    }

    struct Configuration: Sendable {
        var destination: StreamDestination
        var tracks: [StreamTrack]
        var keyframeInterval: MediaTime
        var maximumDelay: MediaTime
        var reconnection: Reconnection
    }

    private struct Shared {
        var queue: StreamPacketQueue
        var connected = false
        var ending = false
        var statistics: StreamStatistics
        /// Capture time of the stream's time zero.
        var origin: MediaTime?
        var unreportedDrops = 0
        var lastDropReport: MediaTime = .negativeInfinity
    }

    let configuration: Configuration
    private let shared: Mutex<Shared>
    private let wake = DispatchSemaphore(value: 0)
    private let interrupt = NetworkInterrupt()
    private let onEvent: @Sendable (StreamEvent) -> Void
    private let worker = Mutex<WorkerThread?>(nil)

    init(_ configuration: Configuration, onEvent: @escaping @Sendable (StreamEvent) -> Void) {
        self.configuration = configuration
        self.onEvent = onEvent
        let hasVideo = configuration.tracks.contains { $0.track == .video }
        shared = Mutex(Shared(queue: StreamPacketQueue(maximumDelay: configuration.maximumDelay, hasVideo: hasVideo),
                              statistics: StreamStatistics(destination: configuration.destination)))
    }

    /// Starts the thread.
    func begin() {
        // Stopping the thread only wakes it: it drains and ends the stream cleanly, until
        // finish's deadline interrupts what is left.
        let thread = WorkerThread(name: "CaptureKit.stream", wake: { [wake] in wake.signal() }) { [self] thread in run(thread) }
        worker.withLock { $0 = thread }
    }

    /// Sets the capture time of the stream's time zero (for the latency).
    func setOrigin(_ origin: MediaTime) { shared.withLock { $0.origin = origin } }

    var statistics: StreamStatistics { shared.withLock { $0.statistics } }

    /// How full the queue is while connected: its media over the maximum delay (0 while away,
    /// when only the newest group waits).
    var fullness: Double {
        shared.withLock { $0.connected ? $0.queue.span.seconds / configuration.maximumDelay.seconds : 0 }
    }

    /// Queues a packet (from the encoder thread; never blocks on the network).
    func enqueue(_ packet: HeldPacket) {
        let report = shared.withLock { shared -> Int? in
            guard !shared.ending else { return nil }
            let dropped = shared.queue.append(packet, holdingNewestGroup: !shared.connected)
            return noteDropped(dropped, in: &shared)
        }
        wake.signal()
        if let report { onEvent(.dropped(configuration.destination, frames: report)) }
    }

    /// Sends what is queued (for at most `drainTime`), ends the stream cleanly, and returns
    /// once the thread is gone.
    func finish(drainTime: MediaTime = MediaTime(value: 2, timescale: 1)) {
        shared.withLock { $0.ending = true }
        wake.signal()
        let deadline = DispatchTime.now() + drainTime.seconds
        let thread = worker.withLock { $0 }
        // The thread sees `ending`, drains and leaves; past the deadline it is interrupted.
        DispatchQueue.global().asyncAfter(deadline: deadline) { [interrupt, wake] in
            interrupt.stop()
            wake.signal()
        }
        thread?.stop()
    }

    // MARK: The thread

    private func run(_ thread: WorkerThread) {
        var attempt = 0
        var lastError: CaptureError?
        onEvent(.connecting(configuration.destination))
        while !interrupt.isStopping, !thread.isStopping {
            if shared.withLock({ $0.ending }) { break }
            let connection: StreamConnection
            do throws(CaptureError) {
                connection = try StreamConnection(to: configuration.destination, tracks: configuration.tracks,
                                                  keyframeInterval: configuration.keyframeInterval, interrupt: interrupt)
            } catch {
                if interrupt.isStopping { break }
                attempt += 1
                lastError = error
                guard wait(before: attempt, after: error) else { break }
                continue
            }
            let dropped = shared.withLock { shared -> Int? in
                shared.connected = true
                shared.statistics.state = .connected
                if attempt > 0 { shared.statistics.reconnects += 1 }
                return noteDropped(shared.queue.restartAtNewestKeyframe(), in: &shared, force: true)
            }
            onEvent(.connected(configuration.destination))
            if let dropped { onEvent(.dropped(configuration.destination, frames: dropped)) }
            attempt = 0
            lastError = nil
            let broke = send(on: connection)
            // What the connection did not take is dropped, and counted: every frame of the
            // stream is sent or reported dropped.
            let unsent = shared.withLock { shared -> Int? in
                shared.connected = false
                return noteDropped(shared.queue.dropAll(), in: &shared, force: true)
            }
            if let unsent { onEvent(.dropped(configuration.destination, frames: unsent)) }
            guard let broke else {
                connection.finish(interrupt: interrupt)
                break
            }
            connection.close()
            if interrupt.isStopping { break }
            attempt = 1
            lastError = broke
            guard wait(before: attempt, after: broke) else { break }
        }
        let unreported = shared.withLock { shared -> Int in
            // Ending while away or connecting: what waited is dropped too.
            _ = noteDropped(shared.queue.dropAll(), in: &shared)
            shared.ending = true
            shared.statistics.state = .ended
            defer { shared.unreportedDrops = 0 }
            return shared.unreportedDrops
        }
        if unreported > 0 { onEvent(.dropped(configuration.destination, frames: unreported)) }
        var gaveUp: CaptureError?
        if let lastError, let limit = configuration.reconnection.maximumAttempts, attempt > limit { gaveUp = lastError }
        onEvent(.ended(configuration.destination, error: gaveUp))
    }

    /// Sends until the output ends (nil) or the connection breaks (its error).
    private func send(on connection: StreamConnection) -> CaptureError? {
        var windowStart = MonotonicClock.now()
        var windowBytes = 0
        // Sound is handed over after the picture it goes with, so sound older than the keyframe
        // a connection starts with follows it; FLV refuses anything before its first packet.
        var start: MediaTime?
        // libsrt counts per connection; the statistics count over all of them.
        let retransmittedBefore = shared.withLock { $0.statistics.retransmittedPackets ?? 0 }
        while !interrupt.isStopping {
            let (next, ending) = shared.withLock { ($0.queue.popFirst(), $0.ending) }
            guard let packet = next else {
                if ending { return nil }
                _ = wake.wait(timeout: .now() + 0.05)
                continue
            }
            if let start, packet.decodeTime < start { continue }
            if start == nil { start = packet.decodeTime }
            do throws(CaptureError) {
                try connection.send(packet, interrupt: interrupt)
            } catch {
                // The packet the connection broke on was not sent either.
                let frame = StreamPacketQueue.Dropped(videoFrames: packet.track == .video ? 1 : 0, audioPackets: 0)
                shared.withLock { _ = noteDropped(frame, in: &$0) }
                return interrupt.isStopping ? nil : error
            }
            let now = MonotonicClock.now()
            windowBytes += packet.size
            let windowEnded = now - windowStart >= MediaTime(value: 1, timescale: 1)
            let measure = windowEnded ? connection.link?.measure() : nil
            shared.withLock { shared in
                shared.statistics.bytesSent += Int64(packet.size)
                if packet.track == .video {
                    shared.statistics.framesSent += 1
                    if let origin = shared.origin, case let latency = now - (origin + packet.time), latency >= .zero {
                        shared.statistics.latency = latency
                    }
                }
                if windowEnded {
                    shared.statistics.bitRate = Int(Double(windowBytes * 8) / (now - windowStart).seconds)
                    if let measure {
                        shared.statistics.roundTripTime = measure.roundTripTime
                        shared.statistics.retransmittedPackets = retransmittedBefore + measure.retransmittedPackets
                    }
                    windowStart = now
                    windowBytes = 0
                }
            }
        }
        return nil
    }

    /// Reports the failure and waits out the backoff before `attempt`; false when the output
    /// ends meanwhile or the attempts are used up.
    private func wait(before attempt: Int, after error: CaptureError) -> Bool {
        if let limit = configuration.reconnection.maximumAttempts, attempt > limit { return false }
        let delay = configuration.reconnection.delay(before: attempt)
        shared.withLock { $0.statistics.state = .reconnecting(attempt: attempt) }
        onEvent(.reconnecting(configuration.destination, attempt: attempt, error: error, delay: delay))
        let deadline = DispatchTime.now() + delay.seconds
        while DispatchTime.now() < deadline {
            if interrupt.isStopping || shared.withLock({ $0.ending }) { return false }
            _ = wake.wait(timeout: deadline)
        }
        return !interrupt.isStopping
    }

    /// Counts drops; the number to report now (at most one report a second), if any.
    private func noteDropped(_ dropped: StreamPacketQueue.Dropped, in shared: inout Shared, force: Bool = false) -> Int? {
        shared.statistics.framesDropped += dropped.videoFrames
        shared.unreportedDrops += dropped.videoFrames
        let now = MonotonicClock.now()
        guard shared.unreportedDrops > 0, force || now - shared.lastDropReport >= MediaTime(value: 1, timescale: 1) else { return nil }
        defer { shared.unreportedDrops = 0 }
        shared.lastDropReport = now
        return shared.unreportedDrops
    }
}
