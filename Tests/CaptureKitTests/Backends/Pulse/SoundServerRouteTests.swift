import Foundation
import Glibc
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.SoundServerTests {
    // MARK: Routes

    /// Which route recording takes, as the server names itself and as asked.
    @Test func theRouteFollowsTheServer() {
        let pipeWire = "PulseAudio (on PipeWire 0.3.65)", daemon = ["PIPEWIRE_REMOTE": "/run/user/1000/pipewire-0"]
        #expect(SoundServerRoute.route(serverName: pipeWire, channelCount: 1, environment: daemon) == .pipeWire)
        #expect(SoundServerRoute.route(serverName: pipeWire, channelCount: 2, environment: daemon) == .pipeWire)
        #expect(SoundServerRoute.route(serverName: "pulseaudio", channelCount: 1, environment: daemon) == .pulse)
        #expect(SoundServerRoute.route(serverName: pipeWire, channelCount: 1, environment: [:]) == .pulse, "no PipeWire daemon to reach")
        #expect(SoundServerRoute.route(serverName: pipeWire, channelCount: 6, environment: daemon) == .pulse, "PipeWire's route takes mono and stereo")
        #expect(SoundServerRoute.route(serverName: pipeWire, channelCount: 2, environment: daemon.merging(["CAPTUREKIT_SOUND_SERVER_ROUTE": "pulse"]) { $1 })
                == .pulse)
    }

    /// On PipeWire, a source is recorded by a stream of PipeWire's own (a node no pulse client
    /// made), unless `CAPTUREKIT_SOUND_SERVER_ROUTE=pulse` asks for libpulse's; both carry the
    /// source's tone. Checked in the daemon's own object list (`pw-dump`).
    @Test(arguments: [SoundServerRoute.pipeWire, .pulse])
    func pipeWireSourcesAreRecordedNatively(_ route: SoundServerRoute) async throws {
        guard try AudioDaemons.requireTools(also: ["pw-dump"]) else { return }
        if route == .pulse { setenv("CAPTUREKIT_SOUND_SERVER_ROUTE", "pulse", 1) }
        defer { unsetenv("CAPTUREKIT_SOUND_SERVER_ROUTE") }
        try await AudioDaemons.withPipeWire { daemon in
            let microphone = try CaptureDevice.soundServerSource(named: "tonemic")
            let (session, recorder) = try Self.audioSession(microphone)
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(timeout: .seconds(15)) { $0.reduce(0) { $0 + ($1.sample.audioBuffer?.frameCount ?? 0) } >= 48_000 })
            let streams = try Self.captureStreams(daemon)
            try session.stopRunning()
            let ours = try #require(streams.first { $0.processID == getpid() }, "no stream of this process in \(streams)")
            #expect(ours.isPulseClient == (route == .pulse), "\(route): \(ours)")
            let samples = recorder.samples.items.flatMap { $0.sample.audioBuffer?.floatSamples() ?? [] }
            let tone = ToneAnalyzer(samples: Array(samples.suffix(24_000)), sampleRate: 48_000)
            let found = try #require(tone.dropoutFreeFrequency, "\(route): no 50 ms without a dropout")
            #expect(abs(found - 440) <= 2, "\(route): \(found) Hz")
        }
    }

    /// A PipeWire daemon that is not the sound server's (here: none at the address given) leaves
    /// recording to libpulse, which records the tone as before.
    @Test func anUnreachablePipeWireDaemonFallsBackToLibpulse() async throws {
        guard try AudioDaemons.requireTools(also: ["pw-dump"]) else { return }
        try await AudioDaemons.withPipeWire { daemon in
            setenv("PIPEWIRE_REMOTE", "\(daemon.directory)/no-such-daemon", 1)
            let microphone = try CaptureDevice.soundServerSource(named: "tonemic")
            let (session, recorder) = try Self.audioSession(microphone)
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await recorder.samples.wait(timeout: .seconds(15)) { $0.reduce(0) { $0 + ($1.sample.audioBuffer?.frameCount ?? 0) } >= 24_000 })
            let streams = try Self.captureStreams(daemon)
            try session.stopRunning()
            let ours = try #require(streams.first { $0.processID == getpid() }, "no stream of this process in \(streams)")
            #expect(ours.isPulseClient, "\(ours)")
        }
    }

    /// The monitor of an output records what plays into it, on either route.
    @Test(arguments: [SoundServerRoute.pipeWire, .pulse])
    func aMonitorRecordsWhatTheSinkPlays(_ route: SoundServerRoute) async throws {
        guard try AudioDaemons.requireTools() else { return }
        if route == .pulse { setenv("CAPTUREKIT_SOUND_SERVER_ROUTE", "pulse", 1) }
        defer { unsetenv("CAPTUREKIT_SOUND_SERVER_ROUTE") }
        try await AudioDaemons.withPipeWire { daemon in
            try daemon.playTone(frequency: 1000)
            let monitor = try CaptureDevice.soundServerSource(named: "vsink.monitor")
            #expect(monitor.deviceType == .systemAudio)
            let samples = try await Self.record(monitor, seconds: 1)
            let tone = ToneAnalyzer(samples: samples, sampleRate: 48_000)
            let found = try #require(tone.dropoutFreeFrequency, "\(route): no 50 ms without a dropout")
            #expect(abs(found - 1000) <= 2, "\(route): \(found) Hz")
        }
    }

    /// A capture stream (`Stream/Input/Audio`) as the PipeWire daemon lists it, with its client.
    struct CaptureStreamNode: CustomStringConvertible {
        var properties: [String: String]
        var client: [String: String]
        /// The process whose stream it is (for a pulse client, the application's, as it said).
        var processID: pid_t? { client["application.process.id"].flatMap { pid_t($0) } ?? properties["application.process.id"].flatMap { pid_t($0) } }
        /// Made through pipewire-pulse rather than by libpipewire in the process itself.
        var isPulseClient: Bool { properties["client.api"] == "pipewire-pulse" || client["client.api"] == "pipewire-pulse" }
        var description: String { "node \(properties) of client \(client)" }
    }

    /// The daemon's capture streams, from `pw-dump`.
    static func captureStreams(_ daemon: AudioDaemon) throws -> [CaptureStreamNode] {
        let dump = try AudioDaemons.run("pw-dump", [], environment: daemon.environment)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(dump.utf8)) as? [[String: Any]])
        func properties(_ object: [String: Any]) -> [String: String] {
            ((object["info"] as? [String: Any])?["props"] as? [String: Any] ?? [:]).mapValues { "\($0)" }
        }
        let clients = Dictionary(objects.filter { $0["type"] as? String == "PipeWire:Interface:Client" }.compactMap { object in
            (object["id"] as? Int).map { ("\($0)", properties(object)) }
        }, uniquingKeysWith: { first, _ in first })
        return objects.compactMap { object -> CaptureStreamNode? in
            let props = properties(object)
            guard object["type"] as? String == "PipeWire:Interface:Node", props["media.class"] == "Stream/Input/Audio" else { return nil }
            return CaptureStreamNode(properties: props, client: props["client.id"].flatMap { clients[$0] } ?? [:])
        }
    }
}
