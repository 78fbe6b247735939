import Testing
@testable import CaptureKit

/// A sound-server capture stream against a scripted server (``ScriptedPulseStream``): what it
/// makes of holes, failed reads, latency reports, a source that goes and returns under its
/// name, and a server that goes away — each of which a real daemon produces only by chance.
@Suite("PulseCaptureStream", .excludable)
struct PulseCaptureStreamTests {
    private static let format = AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16)
    private static let source = "mic"

    enum Record: Sendable {
        case sample(SampleBuffer)
        case dropped(Int)
        case disconnected
        case reconnected
        case failed(CaptureError)
        case other

        var sample: SampleBuffer? { if case .sample(let sample) = self { sample } else { nil } }
    }

    /// A running stream on the scripted server, and what it reported.
    private func start(_ server: ScriptedPulseStream) throws(CaptureError) -> (PulseCaptureStream, Recorder<Record>) {
        let records = Recorder<Record>()
        let sink = StreamSink(deliver: { records.append(.sample($0)) }, event: { event in
            switch event {
            case .droppedFrames(let count): records.append(.dropped(count))
            case .disconnected: records.append(.disconnected)
            case .reconnected: records.append(.reconnected)
            case .failed(let error): records.append(.failed(error))
            default: records.append(.other)
            }
        })
        let stream = try PulseCaptureStream(io: server, sourceName: Self.source, deviceID: "pulse:\(Self.source)",
                                            format: Self.format, sink: sink)
        return (stream, records)
    }

    /// `frames` mono 16-bit samples holding the numbers from `first` on.
    private func audio(from first: Int, frames: Int) -> ScriptedPulseStream.Fragment {
        .audio((first..<(first + frames)).flatMap { withUnsafeBytes(of: Int16($0).littleEndian, Array.init) })
    }

    private func values(_ sample: SampleBuffer?) -> [Int] {
        sample?.audioBuffer?.withUnsafeBytes { raw in raw.bindMemory(to: Int16.self).map { Int($0) } } ?? []
    }

    @Test func aHoleIsReportedAndTheAudioAfterItKeepsItsPlace() throws {
        let server = ScriptedPulseStream(sources: [Self.source])
        server.reportLatency(nanoseconds: 50_000_000)
        let (stream, records) = try start(server)
        defer { stream.stop() }
        server.deliver([audio(from: 0, frames: 480), .hole(bytes: 240 * 2), audio(from: 720, frames: 480)])

        let items = records.items
        #expect(items.count == 3)
        let first = try #require(items.first?.sample)
        let second = try #require(items.last?.sample)
        guard case .dropped(let lost) = items[1] else {
            Issue.record("expected the hole reported as dropped frames, got \(items[1])")
            return
        }
        #expect(lost == 240)
        #expect(values(first) == Array(0..<480))
        #expect(values(second) == Array(720..<1_200))
        // The hole's samples are counted, and the audio after it starts after the hole.
        #expect(first.sequenceNumber == 0)
        #expect(second.sequenceNumber == 720)
        #expect(second.presentationTimeStamp - first.presentationTimeStamp == MediaTime(value: 720, timescale: 48_000))
    }

    @Test func aReadAfterTheStreamFailedIsTheTypedError() throws {
        let server = ScriptedPulseStream(sources: [Self.source])
        let (stream, records) = try start(server)
        defer { stream.stop() }
        server.deliver([.failure], failure: PulseFailure(message: "Connection terminated", isGone: true))
        server.deliver([audio(from: 0, frames: 480)])

        let items = records.items
        #expect(items.count == 1, "nothing is read once a read failed")
        guard case .failed(let error) = items.first else {
            Issue.record("expected a failure, got \(items)")
            return
        }
        #expect(error.code == .deviceNotFound)
        #expect(error.operation == "pa_stream_peek")
        #expect(error.deviceID == "pulse:\(Self.source)")
        #expect(error.message.contains("Connection terminated"))
    }

    @Test func aRefusedReadIsASystemCallFailure() throws {
        let server = ScriptedPulseStream(sources: [Self.source])
        let (stream, records) = try start(server)
        defer { stream.stop() }
        server.deliver([.failure], failure: PulseFailure(message: "Input/output error", isGone: false))
        guard case .failed(let error) = records.items.first else {
            Issue.record("expected a failure, got \(records.items)")
            return
        }
        #expect(error.code == .systemCallFailed)
    }

    @Test func timestampsAreTheReadTimeLessTheLatency() throws {
        let server = ScriptedPulseStream(sources: [Self.source])
        server.reportLatency(nanoseconds: 30_000_000)
        let (stream, records) = try start(server)
        defer { stream.stop() }
        let before = MonotonicClock.nanoseconds()
        server.deliver([audio(from: 0, frames: 480)])
        let after = MonotonicClock.nanoseconds()

        let sample = try #require(records.items.first?.sample)
        let start = sample.presentationTimeStamp.convertScale(48_000).value
        let earliest = MonotonicClock.samples(atNanoseconds: before - 30_000_000, rate: 48_000, rounding: .roundTowardNegativeInfinity)
        let latest = MonotonicClock.samples(atNanoseconds: after - 30_000_000, rate: 48_000, rounding: .roundTowardPositiveInfinity)
        #expect((earliest...latest).contains(start), "captured 30 ms before it was read")
        #expect(sample.duration == MediaTime(value: 480, timescale: 48_000))
    }

    @Test func withoutATimingReportABufferEndsWhenItIsRead() throws {
        let server = ScriptedPulseStream(sources: [Self.source])
        server.reportLatency(nanoseconds: nil)
        let (stream, records) = try start(server)
        defer { stream.stop() }
        let before = MonotonicClock.nanoseconds()
        server.deliver([audio(from: 0, frames: 480)])
        let after = MonotonicClock.nanoseconds()

        let sample = try #require(records.items.first?.sample)
        let end = (sample.presentationTimeStamp + sample.duration).convertScale(48_000).value
        let earliest = MonotonicClock.samples(atNanoseconds: before, rate: 48_000, rounding: .roundTowardNegativeInfinity)
        let latest = MonotonicClock.samples(atNanoseconds: after, rate: 48_000, rounding: .roundTowardPositiveInfinity)
        #expect((earliest...latest).contains(end))
    }

    @Test func aSourceThatGoesAndReturnsUnderItsNameIsRecordedAgain() throws {
        let server = ScriptedPulseStream(sources: [Self.source])
        server.reportLatency(nanoseconds: 20_000_000)
        let (stream, records) = try start(server)
        defer { stream.stop() }
        server.deliver([audio(from: 0, frames: 480)])
        server.removeSource(Self.source)
        server.returnSource(Self.source)
        server.deliver([audio(from: 0, frames: 480)])

        let items = records.items
        #expect(items.count == 4)
        guard items.count == 4, case .disconnected = items[1], case .reconnected = items[2] else {
            Issue.record("expected sample, disconnection, reconnection, sample; got \(items)")
            return
        }
        #expect(server.connections == 2)
        // Numbering runs on across the absence (reported as the disconnection, not as a gap).
        #expect(items[3].sample?.sequenceNumber == 480)
    }

    @Test func aServerThatGoesAwayIsADisconnectionAndNothingReconnects() throws {
        let server = ScriptedPulseStream(sources: [Self.source])
        let (stream, records) = try start(server)
        defer { stream.stop() }
        server.stopServer()
        server.returnSource(Self.source)

        let items = records.items
        #expect(items.count == 1)
        guard case .disconnected = items.first else {
            Issue.record("expected a disconnection, got \(items)")
            return
        }
        #expect(server.connections == 1, "no stream is asked of a server that is gone")
    }

    @Test func openingFailsWithTypedErrors() throws {
        func openingError(_ server: ScriptedPulseStream) -> CaptureError? {
            do throws(CaptureError) {
                let (stream, _) = try start(server)
                stream.stop()
                return nil
            } catch {
                return error
            }
        }
        let missing = ScriptedPulseStream(sources: [])
        #expect(openingError(missing)?.code == .deviceNotFound)
        #expect(missing.connections == 0, "a missing source is not asked for")

        let refused = ScriptedPulseStream(sources: [Self.source])
        refused.answerConnections(.refused(operation: "pa_stream_connect_record"), failure: PulseFailure(message: "Access denied", isGone: false))
        let refusal = openingError(refused)
        #expect(refusal?.code == .systemCallFailed)
        #expect(refusal?.operation == "pa_stream_connect_record")

        let failing = ScriptedPulseStream(sources: [Self.source])
        failing.answerConnections(reaching: .failed, failure: PulseFailure(message: "No such entity", isGone: true))
        #expect(openingError(failing)?.code == .deviceNotFound)
        #expect(!failing.isConnected, "a stream that failed to open is let go")

        let unsupported = ScriptedPulseStream(sources: [Self.source])
        unsupported.answerConnections(.unsupportedFormat)
        #expect(openingError(unsupported)?.code == .unsupportedFormat)
    }

    @Test func stoppingLetsTheStreamGoAndEndsDelivery() throws {
        let server = ScriptedPulseStream(sources: [Self.source])
        let (stream, records) = try start(server)
        #expect(server.isConnected)
        stream.stop()
        #expect(!server.isConnected)
        server.deliver([audio(from: 0, frames: 480)])
        server.returnSource(Self.source)
        #expect(records.items.isEmpty)
        #expect(server.connections == 1)
    }
}
