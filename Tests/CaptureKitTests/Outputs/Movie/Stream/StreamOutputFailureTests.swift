import Foundation
import Glibc
import Synchronization
import Testing
@testable import CaptureKit

/// Destinations that fail — nobody listening, a host that does not resolve, a server that
/// answers with garbage — on a running session: typed errors (one line each, no secret in
/// them), capped retries, then the destination ends; the session and its recording go on.
@Suite(.excludable, .serialized, .tags(.realTime, .childProcess))
struct StreamOutputFailureTests {
    static let key = "live_sk_0f1e2d3c4b5a"

    /// A TCP server on 127.0.0.1 that answers every connection with `reply` and closes it.
    final class AnsweringServer: @unchecked Sendable {
        // Unchecked Sendable: the descriptor is set once in init; the thread only reads it.
        let port: Int
        private let socket: Int32
        private let thread: WorkerThread

        init(reply: [UInt8]) throws {
            let (fd, port) = try loopbackSocket(type: Int32(SOCK_STREAM.rawValue))
            try #require(listen(fd, 8) == 0)
            socket = fd
            self.port = port
            thread = WorkerThread(name: "tests.garbage", wake: { shutdown(fd, Int32(SHUT_RDWR)) }) { thread in
                while !thread.isStopping {
                    let client = accept(fd, nil, nil)
                    guard client >= 0 else { return }
                    _ = reply.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    close(client)
                }
            }
        }

        deinit {
            thread.stop()
            close(socket)
        }
    }

    /// Streams a paced test camera to `url` (at most `attempts` retries, recording too) until
    /// the destination ends; the events, the recording's frames, and whether the session still
    /// ran when the destination gave up.
    func streamUntilItGivesUp(_ url: String, attempts: Int = 2) async throws -> (events: [StreamEvent], frames: Int, running: Bool) {
        let stream = CaptureStreamOutput()
        try stream.setDestinations([StreamDestination(url)])
        try stream.setReconnection(initialDelay: MediaTime(value: 1, timescale: 20), maximumDelay: MediaTime(value: 1, timescale: 10),
                                   maximumAttempts: attempts)
        let movie = MovieFiles.path("stream-failure", "mov")
        try stream.setRecordingURL(movie)
        let (session, camera, microphone) = try makeRecordingSession("stream-failure", outputs: [stream]) {
            $0.sizes = [.init(width: 160, height: 120)]
        }
        defer {
            CaptureDevice.removeVirtualDevice(camera)
            microphone.map(CaptureDevice.removeVirtualDevice)
        }
        let events = Recorder<StreamEvent>()
        // Subscribed before the session starts: every access to `events` makes a stream that
        // hears only what comes after it, and the task may run late.
        let eventStream = stream.events
        let listener = Task { for await event in eventStream { events.append(event) } }
        defer { listener.cancel() }
        try await session.start()
        let ended = await events.wait(timeout: .seconds(30)) { $0.contains { if case .ended = $0 { true } else { false } } }
        let running = session.isRunning
        try await session.stop()
        _ = await events.wait(timeout: .seconds(10)) { $0.contains { if case .recordingFinished = $0 { true } else { false } } }
        #expect(ended, "the destination never gave up: \(events.items)")
        let frames = try ProbedMovie.probe(movie.path).video?.frames ?? 0
        return (events.items, frames, running)
    }

    private func check(_ events: [StreamEvent], code: CaptureError.Code, attempts: Int = 2) {
        let retries = events.compactMap { event -> (Int, CaptureError)? in
            if case .reconnecting(_, let attempt, let error, _) = event { (attempt, error) } else { nil }
        }
        #expect(retries.map(\.0) == Array(1...attempts), "\(events)")
        #expect(retries.allSatisfy { $0.1.code == code }, "\(retries.map(\.1))")
        guard case .ended(_, let error?)? = events.last(where: { if case .ended = $0 { true } else { false } }) else {
            Issue.record("no .ended with the last error: \(events)")
            return
        }
        #expect(error.code == code)
        for event in events {
            let line = event.description
            #expect(!line.contains(Self.key) && !line.contains("\n"), "\(line)")
        }
    }

    @Test func aRefusedConnectionIsRetriedThenGivenUpWhileTheSessionRecords() async throws {
        // Bound but not listening: refused, and no other test's server can take the port meanwhile.
        let (socket, port) = try loopbackSocket(type: Int32(SOCK_STREAM.rawValue))
        defer { close(socket) }
        let (events, frames, running) = try await streamUntilItGivesUp("rtmp://127.0.0.1:\(port)/live/\(Self.key)")
        check(events, code: .connectionFailed)
        #expect(running)
        #expect(frames > 0, "the recording beside the failing stream has no frames")
    }

    @Test func aServerThatAnswersGarbageIsATypedFailure() async throws {
        var generator = SeededGenerator(seed: 17)
        let garbage = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let server = try AnsweringServer(reply: garbage)
        for url in ["rtmp://127.0.0.1:\(server.port)/live/\(Self.key)", "rtsp://user:\(Self.key)@127.0.0.1:\(server.port)/cam"] {
            let (events, _, running) = try await streamUntilItGivesUp(url, attempts: 1)
            check(events, code: .connectionFailed, attempts: 1)
            #expect(running)
        }
    }

    @Test func aHostThatDoesNotResolveIsATypedFailure() async throws {
        let (events, _, running) = try await streamUntilItGivesUp("rtmp://no-such-host.invalid/live/\(Self.key)", attempts: 1)
        check(events, code: .connectionFailed, attempts: 1)
        #expect(running)
    }
}
