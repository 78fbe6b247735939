import Foundation
import Synchronization
import Testing
@testable import CaptureKit

/// The pre-roll output on an unpaced virtual camera playing a scripted scene — an object that
/// appears in frame 90 of a 150-frame loop — with a motion output whose delegate triggers a
/// clip at the motion's frame. Both hold the camera back, so every frame is encoded and the
/// trigger comes at an exact frame; the clips are checked with ffprobe.
@Suite(.excludable, .serialized, .tags(.childProcess))
struct PreRollOutputTests {
    static let appears = 90

    /// Triggers the pre-roll output when motion begins (and, given `again`, once more that
    /// many frames later), on the camera's thread.
    private final class MotionTrigger: CaptureMotionOutputDelegate {
        let preRoll: CapturePreRollOutput
        let again: Int64?
        let triggers = Recorder<MediaTime>()

        init(_ preRoll: CapturePreRollOutput, again: Int64?) {
            self.preRoll = preRoll
            self.again = again
        }

        func motionOutput(_ output: CaptureMotionOutput, didOutput event: MotionEvent, from connection: CaptureConnection) {
            let first = triggers.items.first
            let due = first.flatMap { first in again.map { first + MediaTime(value: $0, timescale: 30) } }
            guard event.phase == .began && first == nil || (due.map { event.presentationTimeStamp >= $0 } ?? false && triggers.items.count == 1)
            else { return }
            try? preRoll.trigger(reason: "motion", at: event.presentationTimeStamp)
            triggers.append(event.presentationTimeStamp)
        }
    }

    private struct Clip {
        var frames: [(pts: Double, key: Bool)]
        var audioStart: Double?
        var comment: String?
    }

    /// The clip's video frames (presentation time, keyframe) and first audio time, by ffprobe.
    private func probe(_ url: URL) throws -> Clip {
        let frames = String(decoding: try FileFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries",
                                                                         "frame=pts_time,key_frame", "-of", "csv=p=0", url.path]), as: UTF8.self)
            .split(separator: "\n").compactMap { line -> (Double, Bool)? in
                let parts = line.split(separator: ",")
                guard parts.count == 2, let key = Int(parts[0]), let pts = Double(parts[1]) else { return nil }
                return (pts, key == 1)
            }
        let audio = String(decoding: try FileFixtures.run("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "packet=pts_time",
                                                                        "-read_intervals", "%+#1", "-of", "csv=p=0", url.path]), as: UTF8.self)
        let comment = String(decoding: try FileFixtures.run("ffprobe", ["-v", "error", "-show_entries", "format_tags=comment", "-of", "csv=p=0", url.path]),
                             as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return Clip(frames: frames, audioStart: Double(audio.split(separator: "\n").first ?? ""), comment: comment.isEmpty ? nil : comment)
    }

    private func record(again: Int64? = nil, audio: Bool = false) async throws -> (clips: [PreRollEvent], trigger: [MediaTime], output: CapturePreRollOutput) {
        // Video alone: the scripted scene on a virtual camera. With sound: a movie made by ffmpeg
        // (grey, a white box from frame 90, a tone) played by file devices, which keep the two
        // in step.
        let devices: [CaptureDevice]
        let files: FileDevices?
        if audio {
            let movie = try FileFixtures.file("preroll-av.mp4") { path in
                try FileFixtures.ffmpeg(["-f", "lavfi", "-i", "color=c=0x606060:s=160x120:r=30:d=5,format=yuv420p"] + FileFixtures.tone(seconds: 5)
                                        + ["-vf", "drawbox=x=100:y=60:w=24:h=20:color=white:t=fill:enable='gte(n,\(Self.appears))'",
                                           "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest"], to: path)
            }
            let made = try CaptureDevice.makeFileDevices(contentsOf: movie, options: FileDeviceOptions(pacing: .unpaced, looping: false))
            files = made
            devices = made.all
        } else {
            var scene = MotionScene(width: 160, height: 120, noise: 2)
            scene.objects = [MotionScene.Object(x: 100, y: 60, width: 24, height: 20, level: 235, frames: Self.appears..<150)]
            let pictures = try (0..<150).map { try scene.pixelBuffer($0) }
            devices = [try makeTestCamera("preroll") {
                $0.sizes = [.init(width: 160, height: 120)]
                $0.pixelFormats = [.nv12]
                $0.content = .frames(pictures)
                $0.pacing = .unpaced
            }]
            files = nil
        }
        defer { if let files { files.remove() } else { devices.forEach(CaptureDevice.removeVirtualDevice) } }
        let folder = FileFixtures.directory.appendingPathComponent("preroll-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let preRoll = CapturePreRollOutput()
        try preRoll.setClipFolder(folder)
        try preRoll.setDurations(preRoll: MediaTime(value: 2, timescale: 1), postRoll: MediaTime(value: 1, timescale: 1),
                                 longestClip: MediaTime(value: 10, timescale: 1))
        let motion = CaptureMotionOutput()
        let trigger = MotionTrigger(preRoll, again: again)
        motion.setMotionDelegate(trigger, queue: DispatchQueue(label: "tests.preroll.motion"))
        let events = Recorder<PreRollEvent>()
        let stream = preRoll.events
        let listener = Task { for await event in stream { events.append(event) } }
        defer { listener.cancel() }
        let session = CaptureSession()
        try session.configure {
            for device in devices { try session.addInput(CaptureDeviceInput(device: device)) }
            try session.addOutput(motion)
            try session.addOutput(preRoll)
        }
        try await session.start()
        let finished = await events.wait(timeout: .seconds(60)) { $0.contains { if case .finished = $0 { true } else { false } } }
        try await session.stop()
        #expect(finished, "no clip finished: \(events.items)")
        return (events.items, trigger.triggers.items, preRoll)
    }

    private func finishedClip(_ events: [PreRollEvent]) throws -> PreRollClip {
        try #require(events.compactMap { if case .finished(let clip) = $0 { clip } else { nil } }.first)
    }

    @Test func aClipStartsOnAKeyframeBeforeThePreRollAndHoldsEveryFrameToThePostRoll() async throws {
        let (events, triggers, _) = try await record()
        let clip = try finishedClip(events)
        let trigger = try #require(triggers.first)
        #expect(clip.triggerTime == trigger && clip.reason == "motion")
        // The first frame is a keyframe at or before trigger − 2 s, and at most a second (one
        // group of pictures) before it.
        let lead = (trigger - clip.startTime).seconds
        #expect(lead >= 2 - 1e-9 && lead <= 3 + 1e-9, "the clip starts \(lead) s before the trigger")
        let probed = try probe(clip.url)
        #expect(probed.frames.first?.key == true, "the first frame is no keyframe")
        #expect(probed.comment == "motion")
        // Every frame from the start to trigger + 1 s, 1/30 s apart, none twice, none missing.
        let expected = Int(((trigger - clip.startTime).seconds + 1) * 30 + 0.5)
        #expect(probed.frames.count == expected, "\(probed.frames.count) frames, expected \(expected)")
        let gaps = zip(probed.frames, probed.frames.dropFirst()).map { $1.pts - $0.pts }
        #expect(gaps.allSatisfy { abs($0 - 1.0 / 30) < 1e-3 }, "frame spacing \(Set(gaps.map { ($0 * 1000).rounded() }))")
        #expect(abs(clip.duration.seconds - Double(expected) / 30) < 1e-6, "\(clip.duration.seconds) s")
    }

    @Test func aSecondTriggerDuringTheClipExtendsIt() async throws {
        let (events, triggers, _) = try await record(again: 15)
        let clips = events.compactMap { if case .finished(let clip) = $0 { clip } else { nil } }
        #expect(clips.count == 1 && triggers.count == 2, "\(clips.count) clips, \(triggers.count) triggers")
        let clip = try finishedClip(events)
        let last = try #require(triggers.last)
        let probed = try probe(clip.url)
        let expected = Int(((last - clip.startTime).seconds + 1) * 30 + 0.5)
        #expect(probed.frames.count == expected, "\(probed.frames.count) frames, expected \(expected) (to the second trigger + 1 s)")
    }

    @Test func soundStartsWithThePictureWithinAFrame() async throws {
        let (events, _, _) = try await record(audio: true)
        let clip = try finishedClip(events)
        let probed = try probe(clip.url)
        let video = try #require(probed.frames.first?.pts)
        let audio = try #require(probed.audioStart, "the clip has no sound")
        #expect(abs(audio - video) <= 1.0 / 30 + 1e-6, "audio starts at \(audio) s, video at \(video) s")
    }

    /// Samples the ring's size with every frame a video data output gets.
    private final class RingWatcher: SampleBufferDelegate {
        let preRoll: CapturePreRollOutput
        let sizes = Recorder<Int>()
        init(_ preRoll: CapturePreRollOutput) { self.preRoll = preRoll }
        func captureOutput(_ output: CaptureOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
            sizes.append(preRoll.bufferedBytes)
        }
    }

    /// 60 s of pre-roll asked for, 256 KiB allowed: over 1 200 noisy frames (far more than
    /// 256 KiB of video) the ring never holds more than the bound plus the one group of
    /// pictures it cannot split.
    @Test func theRingStaysWithinItsByteBound() async throws {
        var scene = MotionScene(width: 160, height: 120, noise: 4)
        scene.objects = []
        let pictures = try (0..<60).map { try scene.pixelBuffer($0) }
        let camera = try makeTestCamera("preroll-ring") {
            $0.sizes = [.init(width: 160, height: 120)]
            $0.pixelFormats = [.nv12]
            $0.content = .frames(pictures)
            $0.pacing = .unpaced
        }
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let preRoll = CapturePreRollOutput()
        try preRoll.setClipFolder(FileFixtures.directory)
        try preRoll.setDurations(preRoll: MediaTime(value: 60, timescale: 1), postRoll: .zero, longestClip: MediaTime(value: 61, timescale: 1))
        let bound = 256 << 10
        try preRoll.setMaximumBufferBytes(bound)
        let video = CaptureVideoDataOutput()
        let watcher = RingWatcher(preRoll)
        video.setSampleBufferDelegate(watcher, queue: DispatchQueue(label: "tests.preroll.ring"))
        let session = try makeSession(camera: camera, outputs: [preRoll, video])
        try await session.start()
        let enough = await watcher.sizes.wait(timeout: .seconds(120)) { $0.count >= 1_200 }
        try await session.stop()
        #expect(enough)
        let sizes = watcher.sizes.items
        let largest = sizes.max() ?? 0
        #expect(largest > bound / 2, "the ring never filled (\(largest) bytes): the test proves nothing")
        #expect(largest <= 2 * bound, "the ring held \(largest) bytes, bound \(bound)")
    }

    /// Triggers the pre-roll output every `every` frames at the frame's time, and notes the
    /// ring's size at every frame and the process's resident memory every thousand.
    private final class Ticker: SampleBufferDelegate {
        let preRoll: CapturePreRollOutput
        let every: UInt64
        let sizes = Recorder<Int>()
        let resident = Recorder<Int>()
        let triggers = Recorder<MediaTime>()
        init(_ preRoll: CapturePreRollOutput, every: UInt64) {
            self.preRoll = preRoll
            self.every = every
        }
        func captureOutput(_ output: CaptureOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
            let number = sampleBuffer.sequenceNumber
            sizes.append(preRoll.bufferedBytes)
            if number % 1_000 == 0 { resident.append(Self.residentBytes()) }
            if number > 0, number % every == 0, (try? preRoll.trigger(reason: "tick", at: sampleBuffer.presentationTimeStamp)) != nil {
                triggers.append(sampleBuffer.presentationTimeStamp)
            }
        }
        /// VmRSS from /proc/self/status, in bytes.
        static func residentBytes() -> Int {
            let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
        }
    }

    /// Ten minutes of capture (18 000 frames, unpaced) with a trigger every 10 s: every trigger
    /// makes a clip, the ring stays within its bound all along, and the process's memory does
    /// not grow with the clips (a leak of a frame per frame would be 500 MB).
    @Test func tenMinutesOfTriggersStayWithinTheRingsBound() async throws {
        var scene = MotionScene(width: 160, height: 120, noise: 4)
        scene.objects = []
        let pictures = try (0..<60).map { try scene.pixelBuffer($0) }
        let camera = try makeTestCamera("preroll-ten-minutes") {
            $0.sizes = [.init(width: 160, height: 120)]
            $0.pixelFormats = [.nv12]
            $0.content = .frames(pictures)
            $0.pacing = .unpaced
        }
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let folder = FileFixtures.directory.appendingPathComponent("preroll-ten-minutes-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let preRoll = CapturePreRollOutput()
        try preRoll.setClipFolder(folder)
        try preRoll.setDurations(preRoll: MediaTime(value: 2, timescale: 1), postRoll: MediaTime(value: 1, timescale: 1),
                                 longestClip: MediaTime(value: 30, timescale: 1))
        let bound = 1 << 20
        try preRoll.setMaximumBufferBytes(bound)
        let events = Recorder<PreRollEvent>()
        let stream = preRoll.events
        let listener = Task { for await event in stream { events.append(event) } }
        defer { listener.cancel() }
        let video = CaptureVideoDataOutput()
        video.alwaysDiscardsLateVideoFrames = false
        let ticker = Ticker(preRoll, every: 300)
        video.setSampleBufferDelegate(ticker, queue: DispatchQueue(label: "tests.preroll.ticks"))
        let session = try makeSession(camera: camera, outputs: [preRoll, video])
        try await session.start()
        let enough = await ticker.sizes.wait(timeout: .seconds(600)) { $0.count >= 18_000 }
        try await session.stop()
        #expect(enough, "\(ticker.sizes.count) frames")
        let triggered = ticker.triggers.count
        _ = await events.wait(timeout: .seconds(30)) { items in items.filter { if case .finished = $0 { true } else { false } }.count >= triggered - 1 }
        let clips = events.items.compactMap { if case .finished(let clip) = $0 { clip } else { nil } }
        #expect(triggered >= 59, "\(triggered) triggers")
        // The last trigger's clip may be cut short by the stop; every other one finished whole.
        #expect(clips.count >= triggered - 1, "\(clips.count) clips for \(triggered) triggers")
        #expect(clips.dropLast().allSatisfy { $0.duration.seconds >= 3 - 1e-6 }, "\(clips.map(\.duration.seconds))")
        #expect(!events.items.contains { if case .failed = $0 { true } else { false } })
        let largest = ticker.sizes.items.max() ?? 0
        #expect(largest <= 2 * bound, "the ring held \(largest) bytes, bound \(bound)")
        let resident = ticker.resident.items
        let grown = (resident.last ?? 0) - (resident.dropFirst(3).first ?? 0)
        #expect(resident.count >= 15 && grown < 48 << 20, "resident memory grew \(grown >> 20) MiB from frame 3000 to the end: \(resident.map { $0 >> 20 })")
    }

    @Test func settingsAreCheckedAndATriggerNeedsARunningSession() throws {
        let output = CapturePreRollOutput()
        #expect(throws: CaptureError.self) { try output.trigger(reason: "early") }
        #expect(throws: CaptureError.self) { try output.setClipFolder(URL(fileURLWithPath: "/nonexistent/clips")) }
        #expect(throws: CaptureError.self) {
            try output.setDurations(preRoll: MediaTime(value: 5, timescale: 1), postRoll: .zero, longestClip: MediaTime(value: 5, timescale: 1))
        }
        #expect(throws: CaptureError.self) { try output.setMaximumBufferBytes(1024) }
    }
}
