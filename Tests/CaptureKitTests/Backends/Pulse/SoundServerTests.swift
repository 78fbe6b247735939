import Foundation
import Glibc
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// The sound-server backend against real daemons: a private PulseAudio, and a private
    /// PipeWire stack reached through pipewire-pulse (see Support/AudioDaemons.swift).
    @Suite(.serialized, .tags(.soundServer, .childProcess))
    struct SoundServerTests {
        static let kinds = AudioDaemon.Kind.allCases

        // MARK: Discovery

        @Test(arguments: kinds)
        func discoveryListsSourcesByName(_ kind: AudioDaemon.Kind) async throws {
            guard try AudioDaemons.requireTools() else { return }
            try await AudioDaemons.with(kind) { daemon in
                let serverNames = try daemon.sourceNames()
                let microphones = CaptureDevice.DiscoverySession(deviceTypes: [.microphone], mediaType: .audio, position: .unspecified).devices
                let monitors = CaptureDevice.DiscoverySession(deviceTypes: [.systemAudio], mediaType: .audio, position: .unspecified).devices
                let expectedMicrophones = kind == .pulseAudio ? ["sine440", "pipemic"] : ["tonemic"]
                for name in expectedMicrophones {
                    #expect(serverNames.contains(name))
                    #expect(microphones.contains { $0.uniqueID == "pulse:\(name)" }, "\(name) is a microphone: \(microphones)")
                }
                #expect(monitors.map(\.uniqueID) == ["pulse:vsink.monitor"], "monitors are system audio, not microphones")
                #expect(!microphones.contains { $0.uniqueID.hasSuffix(".monitor") })
                // Every source the server lists, and nothing else.
                #expect(Set((microphones + monitors).map(\.uniqueID)) == Set(serverNames.map { "pulse:\($0)" }))

                let microphone = try #require(CaptureDevice.default(for: .audio))
                #expect(microphone.uniqueID == "pulse:\(expectedMicrophones[0])", "the server's default source is the default microphone")
                #expect(!microphone.isVirtual && microphone.isConnected && microphone.hasMediaType(.audio))
                #expect(try CaptureDevice.soundServerSource(named: expectedMicrophones[0]) === microphone)
                let formats = microphone.formats.compactMap(\.audioFormat)
                #expect(formats.first?.sampleRate == 48_000 && formats.first?.channelCount == 1)
                for sampleFormat in AudioFormat.SampleFormat.allCases {
                    #expect(formats.contains(AudioFormat(sampleRate: 44_100, channelCount: 2, sampleFormat: sampleFormat)))
                }
            }
            // Server gone: nothing from it is listed and the virtual microphone is the default
            // again, without waiting for anything: with no socket to connect to, discovery does
            // not try (so it cannot wait for the connection's timeout).
            await AudioDaemons.withoutSoundServer {
                #expect(!SoundServerAddress.current().mayBeReachable, "no server socket, so no connection attempt")
                let started = ContinuousClock.now
                let devices = CaptureDevice.allDevices
                #expect(ContinuousClock.now - started < PulseConnection.replyTimeout, "discovery without a server waited for a timeout")
                #expect(!devices.contains { $0.uniqueID.hasPrefix("pulse:") })
                #expect(CaptureDevice.default(for: .audio)?.deviceType != .microphone || devices.contains { $0.deviceType == .microphone })
            }
        }

        @Test(arguments: kinds)
        func missingSourceIsATypedError(_ kind: AudioDaemon.Kind) async throws {
            guard try AudioDaemons.requireTools() else { return }
            try await AudioDaemons.with(kind) { daemon in
                #expect(throws: CaptureError.self) { try CaptureDevice.soundServerSource(named: "no-such-source") }
                do throws(CaptureError) {
                    _ = try CaptureDevice.soundServerSource(named: "no-such-source")
                } catch {
                    #expect(error.code == .deviceNotFound)
                }
                // Below discovery: asking the server for a stream on a source it does not have
                // fails (pipewire-pulse would otherwise record silence).
                let connection = try PulseConnection.connect()
                let sink = StreamSink(deliver: { _ in }, event: { _ in })
                do throws(CaptureError) {
                    _ = try PulseCaptureStream(io: PulseRecordStream(connection: connection), sourceName: "no-such-source", deviceID: "pulse:no-such-source",
                                               format: AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16), sink: sink)
                    Issue.record("a stream on a missing source opened")
                } catch {
                    #expect(error.code == .deviceNotFound)
                }
                // A device whose source was unloaded cannot start.
                let fifo = "\(daemon.directory)/gone.fifo"
                let module = try daemon.loadModule("module-pipe-source", "source_name=gonemic", "file=\(fifo)", "format=s16le", "rate=48000", "channels=1")
                try daemon.waitForSource("gonemic", present: true)
                let device = try CaptureDevice.soundServerSource(named: "gonemic")
                try daemon.unloadModule(module)
                try daemon.waitForSource("gonemic", present: false)
                let session = CaptureSession()
                let start: () throws -> Void = {
                    session.beginConfiguration()
                    try session.addInput(CaptureDeviceInput(device: device))
                    try session.addOutput(CaptureAudioDataOutput())
                    try session.commitConfiguration()
                    try session.startRunning()
                }
                do {
                    try start()
                    Issue.record("a session on an unloaded source started")
                } catch let error as CaptureError {
                    #expect([.deviceNotFound, .deviceDisconnected].contains(error.code), "\(error)")
                }
                try? session.stopRunning()
            }
        }

        // MARK: Content

        /// 2 s from a 440 Hz and a 1000 Hz source: that frequency (Goertzel, ±2 Hz) at a −6 dBFS
        /// peak (±0.5 dB), read on the stretches without the source's dropouts (on a loaded
        /// machine pw-cat misses graph cycles, which PipeWire fills with silence; see
        /// ``ToneAnalyzer/dropoutFreeBlocks``).
        @Test(arguments: kinds)
        func recordsTheSourcesTone(_ kind: AudioDaemon.Kind) async throws {
            guard try AudioDaemons.requireTools() else { return }
            try await AudioDaemons.with(kind) { daemon in
                if kind == .pulseAudio {
                    _ = try daemon.loadModule("module-sine-source", "source_name=sine1000", "rate=48000", "frequency=1000")
                    try daemon.waitForSource("sine1000", present: true)
                } else {
                    try daemon.addToneSource(name: "tone1000", frequency: 1000)
                }
                let sources = kind == .pulseAudio ? [("sine440", 440.0), ("sine1000", 1000.0)] : [("tonemic", 440.0), ("tone1000", 1000.0)]
                for (name, frequency) in sources {
                    let samples = try await Self.record(try CaptureDevice.soundServerSource(named: name), seconds: 2)
                    let tone = ToneAnalyzer(samples: samples, sampleRate: 48_000)
                    let found = try #require(tone.dropoutFreeFrequency, "\(kind) \(name): no 50 ms without a dropout")
                    #expect(abs(found - frequency) <= 2, "\(kind) \(name): \(found) Hz, expected \(frequency)")
                    let other = frequency == 440 ? 1000.0 : 440.0
                    #expect(ToneAnalysis.power(samples, rate: 48_000, frequency: frequency) > 100 * ToneAnalysis.power(samples, rate: 48_000, frequency: other))
                    let peak = try #require(tone.dropoutFreeRMSLevel)
                    #expect(abs(peak - -6.02) <= 0.5, "\(kind) \(name): peak \(peak) dBFS, expected −6 dBFS")
                }
            }
        }

        /// The server converts to any listed format: 44.1 kHz stereo in s32 and f32 still carry
        /// the 440 Hz tone, on both channels.
        @Test(arguments: [AudioFormat.SampleFormat.s32, .f32])
        func recordsInTheRequestedFormat(_ sampleFormat: AudioFormat.SampleFormat) async throws {
            guard try AudioDaemons.requireTools() else { return }
            try await AudioDaemons.withPipeWire { _ in
                let microphone = try CaptureDevice.soundServerSource(named: "tonemic")
                let wanted = AudioFormat(sampleRate: 44_100, channelCount: 2, sampleFormat: sampleFormat)
                let format = try #require(microphone.formats.first { $0.audioFormat == wanted })
                try microphone.lockForConfiguration()
                try microphone.setActiveFormat(format)
                microphone.unlockForConfiguration()
                let (session, recorder) = try Self.audioSession(microphone)
                try await session.start()
                defer { try? session.stopRunning() }
                #expect(await recorder.samples.wait(timeout: .seconds(30)) { $0.reduce(0) { $0 + ($1.sample.audioBuffer?.frameCount ?? 0) } >= 66_150 })
                try session.stopRunning()
                let buffers = recorder.samples.items.compactMap(\.sample.audioBuffer)
                #expect(buffers.allSatisfy { $0.format == wanted })
                let interleaved = buffers.flatMap { $0.floatSamples() }
                let left = stride(from: 0, to: interleaved.count, by: 2).map { interleaved[$0] }
                let right = stride(from: 1, to: interleaved.count, by: 2).map { interleaved[$0] }
                let window = Array(left.suffix(44_100)), rightWindow = Array(right.suffix(44_100))
                let tone = ToneAnalyzer(samples: window, sampleRate: 44_100)
                let found = try #require(tone.dropoutFreeFrequency, "\(sampleFormat): no 50 ms without a dropout")
                #expect(abs(found - 440) <= 2, "\(sampleFormat): \(found) Hz")
                #expect(abs((tone.dropoutFreeRMSLevel ?? 0) - -6.02) <= 0.5)
                // Dropouts fall on both channels alike, so the whole windows compare.
                #expect(abs(ToneAnalysis.peakDecibels(rightWindow) - ToneAnalysis.peakDecibels(window)) < 0.1, "mono source on both channels")
            }
        }

        /// Buffers are stamped with their capture time: none arrives before its last sample was
        /// captured, consecutive ones join except for small re-alignments to the server's timing,
        /// and every sample number is delivered or reported lost. (Before the timeline bounded
        /// its placements by their read times, PipeWire's low latency reports put buffers up to
        /// 20 ms after their arrival: see ``AudioTimeline``.)
        @Test func timestampsAreContiguousCaptureTimes() async throws {
            guard try AudioDaemons.requireTools() else { return }
            try await AudioDaemons.withPipeWire { _ in
                let microphone = try CaptureDevice.soundServerSource(named: "tonemic")
                let (session, recorder) = try Self.audioSession(microphone)
                try await session.start()
                defer { try? session.stopRunning() }
                #expect(await recorder.samples.wait(timeout: .seconds(30)) { $0.reduce(0) { $0 + ($1.sample.audioBuffer?.frameCount ?? 0) } >= 96_000 })
                try session.stopRunning()
                let buffers = recorder.samples.items
                #expect(buffers.allSatisfy { $0.sample.presentationTimeStamp.timescale == 48_000 }, "sample-exact timestamps")
                let times = AudioCaptureTimes(buffers)
                #expect(times.isCausal, "\(times)")
                #expect(times.jumps.isEmpty, "\(times)")
                let accounting = SampleNumberAccounting(recorder.log.items)
                #expect(accounting.isComplete, "\(accounting)")
            }
        }

        // MARK: Hot-plug and failures

        @Test(arguments: kinds)
        func loadingAndUnloadingASourceIsConnectAndDisconnect(_ kind: AudioDaemon.Kind) async throws {
            guard try AudioDaemons.requireTools() else { return }
            try await AudioDaemons.with(kind) { daemon in
                let events = Recorder<String>()
                let watcher = recordConnectionEvents(into: events)
                defer { watcher.cancel() }
                // The same events as AVFoundation's notifications, with the device as their object.
                let notes = Recorder<String>()
                let noteStreams = [CaptureDevice.wasConnectedNotification, CaptureDevice.wasDisconnectedNotification].map {
                    NotificationCenter.default.notifications(named: $0)
                }
                let noteWatchers = noteStreams.map { stream in
                    Task {
                        for await note in stream {
                            let id = (note.object as? CaptureDevice)?.uniqueID ?? "?"
                            notes.append((note.name == CaptureDevice.wasConnectedNotification ? "+" : "-") + id)
                        }
                    }
                }
                defer { for watcher in noteWatchers { watcher.cancel() } }
                let module = try daemon.loadModule("module-pipe-source", "source_name=hotmic", "file=\(daemon.directory)/hot.fifo",
                                                   "format=s16le", "rate=48000", "channels=1")
                #expect(await events.wait(timeout: .seconds(30)) { $0.contains("+pulse:hotmic") }, "connected: \(events.items)")
                #expect(await notes.wait(timeout: .seconds(30)) { $0.contains("+pulse:hotmic") }, "notified: \(notes.items)")
                let device = try #require(CaptureDevice.device(uniqueID: "pulse:hotmic"))
                #expect(device.isConnected && device.deviceType == .microphone)
                try daemon.unloadModule(module)
                #expect(await events.wait(timeout: .seconds(30)) { $0.contains("-pulse:hotmic") }, "disconnected: \(events.items)")
                #expect(await notes.wait(timeout: .seconds(30)) { $0.contains("-pulse:hotmic") }, "notified: \(notes.items)")
                #expect(!device.isConnected)
                #expect(CaptureDevice.device(uniqueID: "pulse:hotmic") == nil)
            }
        }

        /// A source unloaded under a running session interrupts it; loaded again under the same
        /// name, capture resumes and the interruption ends.
        @Test(arguments: kinds)
        func aReturningSourceEndsTheInterruption(_ kind: AudioDaemon.Kind) async throws {
            guard try AudioDaemons.requireTools() else { return }
            try await AudioDaemons.with(kind) { daemon in
                let arguments = ["source_name=backmic", "file=\(daemon.directory)/back.fifo", "format=s16le", "rate=48000", "channels=1"]
                let load = { try daemon.loadModule("module-pipe-source", arguments[0], arguments[1], arguments[2], arguments[3], arguments[4]) }
                let module = try load()
                try daemon.waitForSource("backmic", present: true)
                let microphone = try CaptureDevice.soundServerSource(named: "backmic")
                let (session, _) = try Self.audioSession(microphone)
                let events = EventRecorder(session)
                try await session.start()
                defer { try? session.stopRunning() }
                try daemon.unloadModule(module)
                #expect(await events.wait(for: .wasInterrupted(.audioDeviceNotAvailable(deviceID: "pulse:backmic")), timeout: .seconds(30)),
                        "\(events.events.items)")
                #expect(session.isInterrupted)
                let again = try load()
                #expect(await events.wait(for: .interruptionEnded, timeout: .seconds(30)), "\(events.events.items)")
                #expect(session.isRunning && !session.isInterrupted)
                try session.stopRunning()
                try daemon.unloadModule(again)
            }
        }

        /// The server dies mid-recording: the session is interrupted with the microphone as the
        /// reason, and the movie is finished and playable.
        @Test(arguments: kinds)
        func serverDeathInterruptsAndFinishesTheRecording(_ kind: AudioDaemon.Kind) async throws {
            guard try AudioDaemons.requireTools() else { return }
            try await AudioDaemons.with(kind) { daemon in
                let microphone = try Self.realTimeSource(daemon)
                let camera = try makeTestCamera("server death") { $0.sizes = [.init(width: 160, height: 120)] }
                defer { CaptureDevice.removeVirtualDevice(camera) }
                let movie = CaptureMovieFileOutput()
                let audio = CaptureAudioDataOutput()
                let recorder = SampleRecorder(label: "tests.serverDeath.audio")
                recorder.attach(to: audio)
                let video = CaptureVideoDataOutput()
                let frames = SampleRecorder(label: "tests.serverDeath.video")
                frames.attach(to: video)
                let session = CaptureSession()
                session.beginConfiguration()
                try session.addInput(CaptureDeviceInput(device: camera))
                try session.addInput(CaptureDeviceInput(device: microphone))
                try session.addOutput(movie)
                try session.addOutput(audio)
                try session.addOutput(video)
                try session.commitConfiguration()
                let events = EventRecorder(session)
                let recording = RecordingRecorder()
                let url = MovieFiles.path("server-death", "mov")
                try await session.start()
                defer { try? session.stopRunning() }
                try movie.startRecording(to: url, recordingDelegate: recording)
                #expect(await recording.calls.wait(timeout: .seconds(30)) { $0.contains(.didStart) })
                // A second and a half of audio and of video captured after the recording started
                // (counted on capture times, not deliveries: a loaded machine may be behind).
                let started = MonotonicClock.nanoseconds()
                let wanted = started + 1_500_000_000
                #expect(await recorder.samples.wait(timeout: .seconds(30)) { $0.last.map { ($0.sample.presentationTimeStamp.nanoseconds ?? 0) >= wanted } ?? false })
                #expect(await frames.waitUntilCaptured(45, of: MediaTime(value: 1, timescale: 30), after: started) != nil)
                daemon.kill()
                #expect(await events.wait(for: .wasInterrupted(.audioDeviceNotAvailable(deviceID: microphone.uniqueID)), timeout: .seconds(30)),
                        "\(events.events.items)")
                let finished = await recording.finished()
                #expect(finished == .didFinish(.deviceDisconnected, usable: true))
                let probed = try ProbedMovie.probe(url.path)
                #expect(probed.audio != nil && probed.video != nil)
                // Everything captured up to the server's death is kept: at least the second and
                // a half after the recording started (less the one frame the tracks may differ by).
                #expect((probed.audio?.duration ?? 0) >= 1.5 - 1.0 / 30, "audio up to the server's death is kept: \(probed)")
                // Playable: every packet decodes.
                _ = try FileFixtures.run("ffmpeg", ["-v", "error", "-xerror", "-i", url.path, "-f", "null", "-"])
                try? FileManager.default.removeItem(at: url)
            }
        }

        // MARK: A/V sync

        /// Half a minute of the virtual camera and PipeWire's real-time tonemic, recorded: audio
        /// and video start and end within one video frame of each other, and the audio keeps its
        /// place — every buffer's time is its capture time (none arrives before it ends, so none
        /// is placed later than it was captured), its re-alignments add up to what the source's
        /// own clock did (the fastest deliveries are as fast at the end as at the start, within a
        /// frame), and every sample is delivered or reported lost.
        ///
        /// Measured on such files (issue 13): with the source on time the file's tone keeps its
        /// phase against the video frames' times to 0.1 ms for the whole run; a loaded machine
        /// makes pw-cat deliver fewer samples than time passes (up to 1 % with no real-time
        /// priority), which the timeline follows in 5 ms steps, however many the load asks for:
        /// how many is the machine's business, and so is how late buffers arrive.
        @Test func movieWithVirtualCameraAndToneMicStaysInSync() async throws {
            guard try AudioDaemons.requireTools() else { return }
            try await AudioDaemons.withPipeWire { _ in
                let microphone = try CaptureDevice.soundServerSource(named: "tonemic")
                let camera = try makeTestCamera("av sync") { $0.sizes = [.init(width: 160, height: 120)] }
                defer { CaptureDevice.removeVirtualDevice(camera) }
                let movie = CaptureMovieFileOutput()
                let audio = CaptureAudioDataOutput()
                let recorder = SampleRecorder(label: "tests.sync.audio")
                recorder.attach(to: audio)
                let session = CaptureSession()
                session.beginConfiguration()
                try session.setSessionPreset(.inputPriority)
                try session.addInput(CaptureDeviceInput(device: camera))
                try session.addInput(CaptureDeviceInput(device: microphone))
                try session.addOutput(movie)
                try session.addOutput(audio)
                try session.commitConfiguration()
                let recording = RecordingRecorder()
                let url = MovieFiles.path("av-sync", "mov")
                let seconds = 30.0
                movie.maxRecordedDuration = MediaTime(seconds: seconds, preferredTimescale: 1)
                try await session.start()
                defer { try? session.stopRunning() }
                try movie.startRecording(to: url, recordingDelegate: recording)
                let finished = await recording.finished(timeout: .seconds(seconds + 60))
                #expect(finished == .didFinish(.maximumDurationReached, usable: true))
                try session.stopRunning()

                let frame = 1.0 / 30
                let probed = try ProbedMovie.probe(url.path)
                let video = try #require(probed.video)
                let sound = try #require(probed.audio)
                #expect(abs(video.startTime - sound.startTime) <= frame, "starts: video \(video.startTime), audio \(sound.startTime)")
                let videoEnd = video.startTime + video.duration, audioEnd = sound.startTime + sound.duration
                #expect(abs(videoEnd - audioEnd) <= frame, "ends: video \(videoEnd), audio \(audioEnd)")
                #expect(abs(videoEnd - seconds) <= 2 * frame)

                let times = AudioCaptureTimes(recorder.samples.items)
                #expect(times.isCausal, "\(times)")
                #expect(times.jumps.isEmpty, "\(times)")
                #expect(abs(times.drift) <= frame, "the audio's timestamps drifted against the monotonic clock: \(times)")
                let accounting = SampleNumberAccounting(recorder.log.items)
                #expect(accounting.isComplete, "\(accounting)")
                try? FileManager.default.removeItem(at: url)
            }
        }

        // MARK: Helpers

        /// A source that delivers in real time: PipeWire's tonemic, or on PulseAudio (whose sine
        /// source is not paced) the monitor of the null sink with a tone playing into it.
        static func realTimeSource(_ daemon: AudioDaemon) throws -> CaptureDevice {
            guard daemon.kind == .pulseAudio else { return try CaptureDevice.soundServerSource(named: "tonemic") }
            try daemon.playTone(frequency: 440)
            return try CaptureDevice.soundServerSource(named: "vsink.monitor")
        }

        static func audioSession(_ microphone: CaptureDevice) throws -> (CaptureSession, SampleRecorder) {
            let session = CaptureSession()
            session.beginConfiguration()
            try session.addInput(CaptureDeviceInput(device: microphone))
            let output = CaptureAudioDataOutput()
            let recorder = SampleRecorder(label: "tests.soundServer")
            recorder.attach(to: output)
            try session.addOutput(output)
            try session.commitConfiguration()
            return (session, recorder)
        }

        /// `seconds` of mono samples from `microphone`, after the first 0.3 s (a new stream may
        /// start with silence while the server links it).
        static func record(_ microphone: CaptureDevice, seconds: Double) async throws -> [Float] {
            let (session, recorder) = try audioSession(microphone)
            let skip = 14_400, wanted = skip + Int(seconds * 48_000)
            try await session.start()
            defer { try? session.stopRunning() }
            let complete = await recorder.samples.wait(timeout: .seconds(15)) { $0.reduce(0) { $0 + ($1.sample.audioBuffer?.frameCount ?? 0) } >= wanted }
            try session.stopRunning()
            try #require(complete, "\(microphone.uniqueID) delivered too little audio")
            let format = try #require(microphone.activeFormat.audioFormat)
            let interleaved = recorder.samples.items.flatMap { $0.sample.audioBuffer?.floatSamples() ?? [] }
            let mono = stride(from: 0, to: interleaved.count, by: format.channelCount).map { interleaved[$0] }
            return Array(mono[skip..<wanted])
        }
    }
}

/// Power and level of a recorded tone over the whole signal (see ``ToneAnalyzer`` for its
/// frequency and level without the source's dropouts).
enum ToneAnalysis {
    /// The power of `frequency` in `samples` (Goertzel).
    static func power(_ samples: [Float], rate: Double, frequency: Double) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / rate)
        var previous = 0.0, beforePrevious = 0.0
        for sample in samples {
            let current = Double(sample) + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        return previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
    }

    /// The peak level in dBFS, from the RMS of a sine (peak = RMS·√2), which one dithered or
    /// clipped sample cannot move.
    static func peakDecibels<C: Collection>(_ samples: C) -> Double where C.Element == Float {
        let rms = sqrt(samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(samples.count, 1)))
        return 20 * log10(rms * 2.0.squareRoot())
    }
}
