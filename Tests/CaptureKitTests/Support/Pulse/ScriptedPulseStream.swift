import Foundation
@testable import CaptureKit

/// A sound server told by the test what to do: its sources, how it answers a stream's
/// connection, the fragments it hands over (audio, holes, failures), the latency it reports,
/// a source that goes and comes back, a server that goes away. Each action calls the stream's
/// callbacks under the lock, as libpulse's loop thread does, before it returns.
final class ScriptedPulseStream: PulseStreamIO, @unchecked Sendable {
    // Unchecked Sendable: state guarded by `lock` (recursive, as the main loop's lock is held again by its callbacks' calls).
    /// One fragment the server hands over.
    enum Fragment {
        case audio([UInt8])
        case hole(bytes: Int)
        /// `pa_stream_peek` fails.
        case failure
    }

    private let lock = NSRecursiveLock()
    private var sources: Set<String>
    private var alive = true
    private var current = PulseStreamState.connecting
    private var waiting: [Fragment] = []
    private var peeked: UnsafeMutableRawPointer?
    private var stateChanged: (() -> Void)?
    private var readable: (() -> Void)?
    private var returned: (@Sendable () -> Void)?
    private var watched: String?
    private var latencyNanoseconds: Int64?
    private var connectResult = PulseConnectResult.started
    private var answer: PulseStreamState? = .ready
    private var failure = PulseFailure(message: "Input/output error", isGone: false)
    private var connectCount = 0

    init(sources: Set<String>) {
        self.sources = sources
    }

    deinit {
        peeked?.deallocate()
    }

    // MARK: The script

    /// What `pa_stream_connect_record` returns, the state the stream then reaches (nil: no
    /// answer), and what libpulse reports as its last failure.
    func answerConnections(_ result: PulseConnectResult = .started, reaching state: PulseStreamState? = .ready,
                           failure: PulseFailure? = nil) {
        lock.withLock {
            connectResult = result
            answer = state
            if let failure { self.failure = failure }
        }
    }

    /// The latency the server reports from now on (nil: no timing report yet).
    func reportLatency(nanoseconds: Int64?) {
        lock.withLock { latencyNanoseconds = nanoseconds }
    }

    /// Hands `fragments` over and calls the read callback.
    func deliver(_ fragments: [Fragment], failure: PulseFailure? = nil) {
        lock.withLock {
            waiting += fragments
            if let failure { self.failure = failure }
            readable?()
        }
    }

    /// The source goes away: the server ends the stream (it does not move).
    func removeSource(_ name: String) {
        lock.withLock {
            sources.remove(name)
            failure = PulseFailure(message: "No such entity", isGone: true)
            change(to: .failed)
        }
    }

    /// The source is listed again under its name.
    func returnSource(_ name: String) {
        lock.withLock {
            sources.insert(name)
            if watched == name { returned?() }
        }
    }

    /// The server goes away: the connection dies and the stream with it.
    func stopServer() {
        lock.withLock {
            alive = false
            failure = PulseFailure(message: "Connection terminated", isGone: true)
            change(to: .terminated)
        }
    }

    /// How often the stream connected.
    var connections: Int { lock.withLock { connectCount } }

    /// Whether a stream is connected or connecting (not released).
    var isConnected: Bool { lock.withLock { stateChanged != nil } }

    private func change(to state: PulseStreamState) {
        current = state
        stateChanged?()
    }

    // MARK: PulseStreamIO

    func locked<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    var isServerAlive: Bool { lock.withLock { alive } }

    func hasSource(named name: String) throws(CaptureError) -> Bool {
        let (alive, present) = lock.withLock { (self.alive, sources.contains(name)) }
        guard alive else { throw CaptureError(.deviceNotFound, "the sound server went away") }
        return present
    }

    func connect(source: String, format: AudioFormat, fragmentBytes: Int,
                 stateChanged: @escaping () -> Void, readable: @escaping () -> Void) -> PulseConnectResult {
        lock.withLock {
            connectCount += 1
            guard connectResult == .started else { return connectResult }
            self.stateChanged = stateChanged
            self.readable = readable
            current = .connecting
            if let answer {
                change(to: sources.contains(source) ? answer : .failed)
            }
            return .started
        }
    }

    var state: PulseStreamState { lock.withLock { current } }

    func readableBytes() -> Int {
        lock.withLock {
            guard stateChanged != nil else { return 0 }
            return waiting.reduce(0) { total, fragment in
                switch fragment {
                case .audio(let bytes): total + bytes.count
                case .hole(let bytes): total + bytes
                case .failure: total + 1
                }
            }
        }
    }

    func peek() -> PulseFragment? {
        lock.withLock {
            guard let fragment = waiting.first else { return .empty }
            switch fragment {
            case .audio(let bytes):
                let copy = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 16)
                copy.copyMemory(from: bytes, byteCount: bytes.count)
                peeked = copy
                return .audio(UnsafeRawPointer(copy), byteCount: bytes.count)
            case .hole(let bytes):
                return .hole(byteCount: bytes)
            case .failure:
                waiting.removeFirst()
                return nil
            }
        }
    }

    func drop() {
        lock.withLock {
            peeked?.deallocate()
            peeked = nil
            if !waiting.isEmpty { waiting.removeFirst() }
        }
    }

    func latency() -> Int64? { lock.withLock { latencyNanoseconds } }

    func release() {
        lock.withLock {
            stateChanged = nil
            readable = nil
            waiting.removeAll()
            current = .connecting
        }
    }

    func lastError() -> PulseFailure { lock.withLock { failure } }

    func watchReturn(of source: String, _ returned: @escaping @Sendable () -> Void) {
        lock.withLock {
            watched = source
            self.returned = returned
        }
    }

    func stopWatching() {
        lock.withLock {
            watched = nil
            returned = nil
        }
    }
}
