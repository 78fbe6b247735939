import Foundation
import Glibc
import Synchronization
import Testing
@testable import CaptureKit

/// The stream output against real servers on 127.0.0.1, started and stopped by the tests
/// (Support/StreamServers.swift): nginx-rtmp (pulled back over RTMP and served as HLS),
/// srt-live-transmit, an RTSP server taking RECORD (FFmpeg listening), HLS files over HTTP. What is
/// checked is what the server received or serves, read with ffprobe — never only what
/// CaptureKit says it sent. Every stream carries a stream key or a passphrase, and no event,
/// log line or error may show it.
@Suite(.excludable, .serialized, .tags(.realTime, .childProcess))
struct StreamOutputServerTests {
    static let key = "sk_live_9c8b7a6f5e4d"
    static let passphrase = "correct-horse-battery-staple"
    static let fps = 30.0

    /// What one streaming run produced: the events, every log line, the recording, and the
    /// output's own figures.
    struct Run {
        var events: [StreamEvent]
        var logs: [String]
        var recording: URL
        var statistics: [StreamStatistics]
        var encodedFrames: Int
        var droppedSamples: Int

        /// Fails the test if a secret shows anywhere.
        func checkRedacted(sourceLocation: SourceLocation = #_sourceLocation) {
            for line in events.map(\.description) + logs + statistics.map(\.destination.description) {
                #expect(!line.contains(StreamOutputServerTests.key) && !line.contains(StreamOutputServerTests.passphrase),
                        "a secret in: \(line)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Collects CaptureLog's lines (FFmpeg's included) while a test streams.
    final class LogLines: Sendable {
        let lines = Mutex<[String]>([])
        func start() { CaptureLog.setHandler(upTo: .info) { [self] _, source, message in lines.withLock { $0.append("[\(source)] \(message)") } } }
        func stop() -> [String] {
            CaptureLog.setHandler(nil)
            return lines.withLock { $0 }
        }
    }

    /// Streams a paced 320x240 test camera and a microphone to `destinations` (keyframe every
    /// second) and records the same encode, for `seconds` of frames; `during` runs once
    /// `at` seconds of frames are encoded. Stops the session and waits for every destination's
    /// end and the recording's.
    func stream(to destinations: [StreamDestination], seconds: Double, configure: (CaptureStreamOutput) throws -> Void = { _ in },
                at mark: Double? = nil, during: (CaptureStreamOutput) async throws -> Void = { _ in }) async throws -> Run {
        let stream = CaptureStreamOutput()
        try stream.setDestinations(destinations)
        try stream.setEncoding(keyframeInterval: MediaTime(value: 1, timescale: 1), encoderPreset: .ultrafast)
        try stream.setVideoBitRate(800_000)
        let recording = MovieFiles.path("stream", "mov")
        try stream.setRecordingURL(recording)
        try configure(stream)
        let (session, camera, microphone) = try makeRecordingSession("stream", outputs: [stream])
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
        let logs = LogLines()
        logs.start()
        try await session.start()
        if let mark {
            #expect(await pollUntil(timeout: .seconds(60)) { Double(stream.encodedVideoFrameCount) >= mark * Self.fps })
            try await during(stream)
        }
        #expect(await pollUntil(timeout: .seconds(120)) { Double(stream.encodedVideoFrameCount) >= seconds * Self.fps },
                "the encode never reached \(seconds) s: \(stream.encodedVideoFrameCount) frames")
        try await session.stop()
        let ends = destinations.count
        let finished = await events.wait(timeout: .seconds(20)) { items in
            items.filter { if case .ended = $0 { true } else { false } }.count == ends
                && items.contains { if case .recordingFinished = $0 { true } else { false } }
        }
        #expect(finished, "the destinations or the recording did not end: \(events.items)")
        return Run(events: events.items, logs: logs.stop(), recording: recording, statistics: stream.statistics,
                   encodedFrames: stream.encodedVideoFrameCount, droppedSamples: stream.droppedSampleCount)
    }

    // MARK: What was received

    /// A media file or URL as ffprobe reads it: per stream, the codec and the packets'
    /// presentation times and keyframe flags.
    struct Received: CustomStringConvertible {
        struct Packet {
            var time: Double
            var key: Bool
        }

        var codecs: [String: String] = [:]      // codec_type → codec_name
        var video: [Packet] = []
        var audio: [Packet] = []

        var keyframeTimes: [Double] { video.filter(\.key).map(\.time) }
        var description: String { "\(codecs), \(video.count) video and \(audio.count) audio packets, keyframes at \(keyframeTimes.prefix(8))" }

        /// Reads `source`; `packets` bounds what is read of a live one (a playlist still growing).
        static func read(_ source: String, packets limit: Int? = nil) throws -> Received {
            let bound = limit.map { ["-read_intervals", "%+#\($0)"] } ?? []
            var received = Received()
            let streams = String(decoding: try FileFixtures.run("ffprobe", ["-v", "error", "-rw_timeout", "5000000", "-show_entries", "stream=codec_type,codec_name",
                                                                            "-of", "csv=p=0", source]), as: UTF8.self)
            for line in streams.split(separator: "\n") {
                let parts = line.split(separator: ",").map(String.init)
                if parts.count >= 2 { received.codecs[parts[1]] = parts[0] }
            }
            let packets = String(decoding: try FileFixtures.run("ffprobe", ["-v", "error", "-rw_timeout", "5000000"] + bound + ["-show_entries",
                                                                            "packet=codec_type,pts_time,flags", "-of", "csv=p=0", source]), as: UTF8.self)
            for line in packets.split(separator: "\n") {
                let parts = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard parts.count >= 3, let time = Double(parts[1]) else { continue }
                let packet = Packet(time: time, key: parts[2].hasPrefix("K"))
                if parts[0] == "video" { received.video.append(packet) } else if parts[0] == "audio" { received.audio.append(packet) }
            }
            return received
        }

        /// The stream as a viewer gets it: H.264 and AAC, keyframes `interval` apart, sound
        /// starting within a frame of the picture.
        func checkPlayable(audio: Bool = true, interval: Double = 1, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(codecs["video"] == "h264", "\(self)", sourceLocation: sourceLocation)
            if audio { #expect(codecs["audio"] == "aac", "\(self)", sourceLocation: sourceLocation) }
            let keys = keyframeTimes
            #expect(keys.count >= 2, "\(self)", sourceLocation: sourceLocation)
            for (a, b) in zip(keys, keys.dropFirst()) {
                #expect(abs(b - a - interval) < 0.5 / StreamOutputServerTests.fps, "keyframes \(a) → \(b): \(self)", sourceLocation: sourceLocation)
            }
            if audio, let firstVideo = video.map(\.time).min(), let firstAudio = self.audio.map(\.time).min() {
                #expect(abs(firstAudio - firstVideo) <= 1 / StreamOutputServerTests.fps + 0.001,
                        "sound starts \(firstAudio - firstVideo) s from the picture", sourceLocation: sourceLocation)
            }
        }
    }

    /// Every frame of the recording is there: consecutive timestamps one frame apart, except
    /// where the recording counted frames dropped.
    func checkRecordingIsWhole(_ run: Run, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let times = try ProbedMovie.videoTimestamps(run.recording.path)
        #expect(times.count == run.encodedFrames, "the recording has \(times.count) frames, the encode made \(run.encodedFrames)",
                sourceLocation: sourceLocation)
        let gaps = zip(times, times.dropFirst()).map { Int((($1 - $0) * Self.fps).rounded()) - 1 }.reduce(0, +)
        #expect(gaps <= run.droppedSamples, "\(gaps) frames missing from the recording, \(run.droppedSamples) counted dropped",
                sourceLocation: sourceLocation)
    }

    private func sent(_ run: Run, _ index: Int = 0) -> Int { run.statistics.count > index ? run.statistics[index].framesSent : 0 }

    // MARK: RTMP

    @Test func rtmpToNginxIsWhatNginxRecordsRelaysAndServesAsHLS() async throws {
        let server = try NginxRTMPServer.start()
        defer { server.stop() }
        let url = server.publishURL(stream: Self.key)
        let pulled = MovieFiles.path("rtmp-pulled", "flv")
        let run = try await stream(to: [try StreamDestination(url)], seconds: 5, at: 1) { _ in
            // A viewer that pulls the stream back over RTMP while it runs.
            try FileFixtures.run("ffmpeg", ["-v", "error", "-rw_timeout", "5000000", "-i", url, "-t", "2.5", "-c", "copy", "-y", pulled.path])
        }
        run.checkRedacted()
        try checkRecordingIsWhole(run)
        let recordings = server.recordings(stream: Self.key)
        #expect(recordings.count == 1, "one publish, one recording: \(recordings)")
        let received = try Received.read(try #require(recordings.first).path)
        received.checkPlayable()
        #expect(abs(received.video.count - sent(run)) <= 30, "nginx has \(received.video.count) frames, \(sent(run)) were sent")
        #expect(sent(run) >= run.encodedFrames - 30, "\(sent(run)) of \(run.encodedFrames) frames sent on an idle link")
        let relayed = try Received.read(pulled.path)
        #expect(relayed.codecs["video"] == "h264" && relayed.codecs["audio"] == "aac" && relayed.video.count >= 30, "\(relayed)")
        // nginx's own HLS, over its HTTP server.
        let hls = try Received.read(server.hlsURL(stream: Self.key), packets: 120)
        #expect(hls.codecs["video"] == "h264" && hls.video.count >= 30, "\(hls)")
    }

    /// Two recordings started and stopped while the stream goes on: each starts at a keyframe
    /// at time zero and holds every frame from there to its stop (packet for packet a run of
    /// what nginx received: the same encode, not a second one), with sound from its first
    /// frame; asking for a second at once is refused; the stream to nginx is never broken.
    @Test func recordingsStartAndStopWhileTheStreamGoesOn() async throws {
        let server = try NginxRTMPServer.start()
        defer { server.stop() }
        let clips = [MovieFiles.path("while-streaming", "mov"), MovieFiles.path("while-streaming", "mp4")]
        defer { clips.forEach { try? FileManager.default.removeItem(at: $0) } }
        let run = try await stream(to: [try StreamDestination(server.publishURL(stream: Self.key))], seconds: 7,
                                   configure: { try $0.setRecordingURL(nil) }, at: 1) { stream in
            for clip in clips {
                try stream.startRecording(to: clip)
                #expect(stream.isRecording)
                #expect { try stream.startRecording(to: clips[0]) } throws: { ($0 as? CaptureError)?.code == .invalidState }
                let from = stream.encodedVideoFrameCount
                #expect(await pollUntil { stream.encodedVideoFrameCount >= from + 60 })
                stream.stopRecording()
                #expect(await pollUntil { !stream.isRecording }, "the recording never finished")
            }
        }
        run.checkRedacted()
        #expect(!run.events.contains { if case .reconnecting = $0 { true } else { false } }, "\(run.events)")
        for clip in clips {
            #expect(run.events.contains { if case .recordingStarted(clip) = $0 { true } else { false } }, "\(run.events)")
            #expect(run.events.contains { if case .recordingFinished(clip, nil) = $0 { true } else { false } }, "\(run.events)")
        }
        let recordings = server.recordings(stream: Self.key)
        #expect(recordings.count == 1, "one publish: \(recordings)")
        let received = try ProbedMovie.videoPacketHashes(try #require(recordings.first)).map(\.hash)
        var after = 0
        for clip in clips {
            let file = try Received.read(clip.path)
            file.checkPlayable()
            let times = file.video.map(\.time).sorted()
            #expect(times.count >= 30 && times.count <= 120, "\(file)")
            #expect(file.video.first?.key == true && (times.first ?? 1) < 0.5 / Self.fps, "starts at a keyframe at zero: \(file)")
            #expect(zip(times, times.dropFirst()).allSatisfy { abs($1 - $0 - 1 / Self.fps) < 0.002 }, "a frame missing: \(times)")
            let hashes = try ProbedMovie.videoPacketHashes(clip).map(\.hash)
            let start = try #require(received.dropFirst(after).firstIndex(of: hashes[0]), "the first packet is one nginx received")
            #expect(Array(received[start...].prefix(hashes.count)) == hashes, "every packet as streamed, in order")
            after = start + hashes.count
        }
    }

    @Test func theArticlesNginxConfigurationServesRTMPAndHLS() async throws {
        let server = try NginxRTMPServer.start(configuration: try Self.articleConfiguration())
        defer { server.stop() }
        let run = try await stream(to: [try StreamDestination(server.publishURL(stream: "door"))], seconds: 4)
        #expect(sent(run) > 0)
        let hls = try Received.read(server.hlsURL(stream: "door"), packets: 120)
        #expect(hls.codecs["video"] == "h264" && hls.codecs["audio"] == "aac" && hls.video.count >= 30, "\(hls)")
    }

    /// The nginx configuration in the streaming article, as a user would copy it.
    static func articleConfiguration() throws -> String {
        let article = try String(contentsOfFile: "Sources/CaptureKit/CaptureKit.docc/StreamingToAMediaServer.md", encoding: .utf8)
        let start = try #require(article.range(of: "```nginx\n"))
        let end = try #require(article.range(of: "```", range: start.upperBound..<article.endIndex))
        return String(article[start.upperBound..<end.lowerBound])
    }

    @Test func aBitRateChangeTakesEffectAtAKeyframeWithoutReconnecting() async throws {
        let server = try NginxRTMPServer.start()
        defer { server.stop() }
        let changedAt = Mutex<MediaTime?>(nil)
        // Between two regular keyframes (one a second), so the one the change makes stands out.
        let run = try await stream(to: [try StreamDestination(server.publishURL(stream: Self.key))], seconds: 8,
                                   configure: { try $0.setVideoBitRate(1_500_000) }, at: 4.4) { stream in
            try stream.setVideoBitRate(150_000)
            changedAt.withLock { $0 = MediaTime(value: Int64(stream.encodedVideoFrameCount), timescale: 30) }
        }
        #expect(!run.events.contains { if case .reconnecting = $0 { true } else { false } })
        let recordings = server.recordings(stream: Self.key)
        #expect(recordings.count == 1, "the change made a new connection: \(recordings)")
        let path = try #require(recordings.first).path
        let sizes = String(decoding: try FileFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,size,flags",
                                                                      "-of", "csv=p=0", path]), as: UTF8.self)
            .split(separator: "\n").compactMap { line -> (time: Double, size: Int, key: Bool)? in
                let parts = line.split(separator: ",").map(String.init)
                guard parts.count >= 3, let time = Double(parts[0]), let size = Int(parts[1]) else { return nil }
                return (time, size, parts[2].hasPrefix("K"))
            }
        let change = try #require(changedAt.withLock { $0 }).seconds
        // A keyframe within a few frames of the change (the frames already queued to the encoder
        // come first), and a far lower rate from there on.
        #expect(sizes.contains { $0.key && $0.time > change - 0.1 && $0.time < change + 0.5 && ($0.time * 30).rounded().truncatingRemainder(dividingBy: 30) != 0 },
                "no keyframe made for the change at \(change) s: keyframes at \(sizes.filter(\.key).map(\.time))")
        let before = sizes.filter { $0.time > 1 && $0.time < change - 0.2 }
        let after = sizes.filter { $0.time > change + 1 }
        let rateBefore = Double(before.map(\.size).reduce(0, +) * 8) / Double(max(1, before.count)) * Self.fps
        let rateAfter = Double(after.map(\.size).reduce(0, +) * 8) / Double(max(1, after.count)) * Self.fps
        #expect(rateAfter < rateBefore * 0.5, "video at \(Int(rateBefore)) bit/s before, \(Int(rateAfter)) after")
    }

    // MARK: A server that goes away

    @Test func aServerKilledMidStreamIsReconnectedWhenItReturnsAndTheRecordingKeepsEveryFrame() async throws {
        let server = try NginxRTMPServer.start()
        defer { server.stop() }
        let restarted = Mutex<MediaTime?>(nil)
        let arrivals = Recorder<(MediaTime, StreamEvent)>()
        let run = try await stream(to: [try StreamDestination(server.publishURL(stream: Self.key))], seconds: 10,
                                   configure: { stream in
                                       let events = stream.events
                                       Task { for await event in events { arrivals.append((MediaTime.now, event)) } }
                                   }, at: 3) { _ in
            server.kill()
            // The scenario itself: the server stays away two seconds.
            try await Task.sleep(for: .seconds(2))
            try server.restart()
            restarted.withLock { $0 = MediaTime.now }
        }
        run.checkRedacted()
        try checkRecordingIsWhole(run)
        let lost = run.events.contains { event in
            if case .reconnecting(_, 1, let error, _) = event { [.connectionLost, .connectionFailed].contains(error.code) } else { false }
        }
        #expect(lost, "the loss was not reported: \(run.events)")
        let back = try #require(restarted.withLock { $0 })
        let reconnected = arrivals.items.first { time, event in
            if case .connected = event { time > back } else { false }
        }
        let delay = try #require(reconnected, "never reconnected after the restart: \(run.events)").0 - back
        #expect(delay.seconds < 1, "reconnected \(delay.seconds) s after the server returned")
        #expect(run.statistics.first?.reconnects == 1)
        let recordings = server.recordings(stream: Self.key)
        #expect(recordings.count == 2, "a recording before the kill and one after the restart: \(recordings)")
        let after = try Received.read(try #require(recordings.last).path)
        after.checkPlayable()
        #expect(after.video.count >= 90, "the stream did not continue after the restart: \(after)")
    }

    // MARK: SRT

    @Test func srtToAListenerWithAPassphrase() async throws {
        let receiver = try SRTReceiver.start(passphrase: Self.passphrase)
        defer { receiver.stop() }
        let run = try await stream(to: [try StreamDestination(receiver.url)], seconds: 4)
        receiver.stop()
        run.checkRedacted()
        let received = try Received.read(receiver.receivedFile.path)
        received.checkPlayable()
        #expect(abs(received.video.count - sent(run)) <= 30, "received \(received.video.count) frames, \(sent(run)) sent")
        #expect(run.statistics.first?.roundTripTime != nil, "an encrypted caller's link is measured: \(run.statistics)")
    }

    /// SRT's own measure of its link: through a relay that holds every datagram 100 ms each
    /// way, the round trip the statistics report is that link's 200 ms — not loopback's
    /// fraction of a millisecond, nor the 100 ms libsrt starts from.
    @Test func srtReportsTheRoundTripOfItsLink() async throws {
        let receiver = try SRTReceiver.start()
        defer { receiver.stop() }
        let relay = try UDPDelayRelay(to: receiver.port, milliseconds: 100)
        defer { relay.stop() }
        let run = try await stream(to: [try StreamDestination("srt://127.0.0.1:\(relay.port)?mode=caller&latency=800000")], seconds: 5)
        let statistics = try #require(run.statistics.first)
        let roundTrip = try #require(statistics.roundTripTime, "no round trip: \(statistics)")
        #expect(roundTrip.seconds >= 0.18 && roundTrip.seconds <= 0.6, "SRT measured a round trip of \(roundTrip.seconds) s over a 2 x 100 ms link")
        #expect(statistics.retransmittedPackets != nil && statistics.framesSent > 0, "\(statistics)")
    }

    @Test func srtAsAListenerThatAViewerCalls() async throws {
        let port = try freeUDPPort()
        let pulled = MovieFiles.path("srt-pulled", "ts")
        let destination = try StreamDestination.srt(host: "", port: port, mode: .listener, passphrase: Self.passphrase)
        let run = try await stream(to: [destination], seconds: 5, at: 0.5) { _ in
            try FileFixtures.run("ffmpeg", ["-v", "error", "-i", "srt://127.0.0.1:\(port)?mode=caller&passphrase=\(Self.passphrase)&pbkeylen=16",
                                            "-t", "2.5", "-c", "copy", "-y", pulled.path])
        }
        run.checkRedacted()
        let received = try Received.read(pulled.path)
        #expect(received.codecs["video"] == "h264" && received.video.count >= 45, "\(received)")
        #expect(received.video.first?.key == true, "a caller is served from a keyframe: \(received)")
        #expect(run.statistics.first?.roundTripTime != nil, "the caller's link is measured on the listener's side too: \(run.statistics)")
    }

    // MARK: RTSP and HLS

    @Test(arguments: [StreamDestination.RTSPTransport.tcp, .udp])
    func rtspRecordToARealServer(transport: StreamDestination.RTSPTransport) async throws {
        let server = try RTSPRecordServer.start(transport: transport.rawValue)
        defer { server.stop() }
        var destination = try StreamDestination(server.publishURL)
        destination.rtspTransport = transport
        let run = try await stream(to: [destination], seconds: 4)
        server.stop()
        run.checkRedacted()
        #expect(sent(run) > 0)
        let received = try Received.read(server.receivedFile.path)
        #expect(received.codecs["video"] == "h264" && received.codecs["audio"] == "aac", "\(received)")
        #expect(received.video.count >= sent(run) - 30, "received \(received.video.count) frames, \(sent(run)) sent")
    }

    @Test func hlsFilesServedOverHTTPPlayBackWhole() async throws {
        let folder = FileFixtures.directory.appendingPathComponent("hls-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let web = try StaticHTTPServer.start(serving: folder)
        defer { web.stop() }
        var destination = try StreamDestination(folder.appendingPathComponent("live.m3u8").path)
        destination.hlsPlaylist = .event
        let run = try await stream(to: [destination], seconds: 4)
        let playlist = try String(contentsOf: folder.appendingPathComponent("live.m3u8"), encoding: .utf8)
        #expect(playlist.contains("#EXT-X-PLAYLIST-TYPE:EVENT") && playlist.contains("#EXT-X-ENDLIST"), "\(playlist)")
        let played = try Received.read(web.url(for: "live.m3u8"))
        played.checkPlayable()
        #expect(played.video.count == sent(run), "HLS plays \(played.video.count) frames, \(sent(run)) were written")
        #expect(sent(run) == run.encodedFrames)
    }

    // MARK: A slow link

    @Test func aCongestedLinkDropsWholeGroupsWhileCaptureAndTheRecordingKeepEveryFrame() throws {
        let plan = try NginxRTMPServer.prepare()
        let scratch = FileFixtures.directory.appendingPathComponent("congested-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let recording = scratch.appendingPathComponent("recording.mov")
        let command = try throttledNamespaceCommand(rateKbit: 100, starting: plan.commandLine, waitingForTCPPort: plan.rtmpPort)
        let result = try CaptureTool.run(["stream", plan.publishURL(stream: Self.key), "--bitrate", "1500k", "--keyframe-interval", "1s",
                                          "--record", recording.path, "--duration", "8s", "--preset", "low", "--json", "--quiet"],
                                         through: command, timeout: .seconds(120))
        #expect(result.status == 0, "\(result)")
        for text in [result.output, result.errors] { #expect(!text.contains(Self.key), "\(text)") }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "\(result)")
        let destination = try #require((json["destinations"] as? [[String: Any]])?.first)
        let dropped = destination["framesDropped"] as? Int ?? 0, sentFrames = destination["framesSent"] as? Int ?? 0
        let encoded = json["framesEncoded"] as? Int ?? 0, lost = json["samplesDropped"] as? Int ?? -1
        #expect(dropped >= 30, "a stream of ~250 kbit/s through 100 kbit/s dropped less than a group: \(destination)")
        #expect(sentFrames + dropped == encoded, "every frame is sent or counted dropped: \(destination), \(encoded) encoded")
        #expect(destination["roundTripTime"] is NSNull, "RTMP reports no round trip: \(destination)")
        let times = try ProbedMovie.videoTimestamps(recording.path)
        #expect(times.count == encoded, "the recording has \(times.count) of \(encoded) frames")
        #expect(Double(encoded + lost) >= 7 * Self.fps, "capture fell behind its frame rate: \(encoded) encoded, \(lost) lost in 8 s")
        let peak = json["peakMemoryBytes"] as? Int ?? 0
        #expect(peak > 0 && peak < 400 << 20, "peak memory \(peak >> 20) MiB")
    }
}
