import Foundation
import Testing
@testable import CaptureKit

/// The pre-roll output's own triggers: the session's sound getting loud (a movie, played by
/// file devices as fast as the encoder goes, silent but for a tone from 3.0 s to 3.6 s), and a
/// code coming into view of a metadata output (a virtual camera showing a QR code for the
/// second half of every 2 s).
@Suite(.excludable, .serialized, .tags(.childProcess))
struct PreRollTriggerTests {
    /// A clip folder of its own.
    private static func folder(_ name: String) throws -> URL {
        let url = FileFixtures.directory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs `session` until the pre-roll output has finished a clip; its events, and the
    /// capture time of the camera's first frame (a data output's).
    private static func firstClip(_ session: CaptureSession, _ preRoll: CapturePreRollOutput,
                                  _ frames: SampleRecorder) async throws -> (clips: [PreRollClip], start: MediaTime) {
        let events = Recorder<PreRollEvent>()
        let stream = preRoll.events
        let listener = Task { for await event in stream { events.append(event) } }
        defer { listener.cancel() }
        try await session.start()
        let finished = await events.wait(timeout: .seconds(60)) { $0.contains { if case .finished = $0 { true } else { false } } }
        try await session.stop()
        #expect(finished, "no clip finished: \(events.items)")
        let start = try #require(frames.samples.items.first?.sample.presentationTimeStamp)
        return (events.items.compactMap { if case .finished(let clip) = $0 { clip } else { nil } }, start)
    }

    @Test func loudSoundStartsAClipThatReachesBeforeIt() async throws {
        let movie = try FileFixtures.file("beep-at-3s.mp4") { path in
            try FileFixtures.ffmpeg(["-f", "lavfi", "-i", "color=c=0x606060:s=160x120:r=30:d=6,format=yuv420p",
                                     "-f", "lavfi", "-i", "aevalsrc='if(between(t\\,3\\,3.6)\\,0.5*sin(2*PI*880*t)\\,0)':s=48000:c=mono:d=6",
                                     "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest"], to: path)
        }
        var options = FileDeviceOptions(pacing: .unpaced, looping: false)
        options.uniqueID = "sound-trigger-\(UUID().uuidString.prefix(6))"
        let devices = try CaptureDevice.makeFileDevices(contentsOf: movie, options: options)
        defer { devices.remove() }
        let preRoll = CapturePreRollOutput()
        try preRoll.setClipFolder(try Self.folder("sound-clips"))
        try preRoll.setDurations(preRoll: MediaTime(value: 1, timescale: 1), postRoll: MediaTime(value: 1, timescale: 2),
                                 longestClip: MediaTime(value: 10, timescale: 1))
        try preRoll.setSoundTrigger(SoundTrigger(threshold: -30, minimumDuration: MediaTime(value: 1, timescale: 10)))
        #expect(throws: CaptureError.self) { try preRoll.setSoundTrigger(SoundTrigger(threshold: 3)) }
        let frames = CaptureVideoDataOutput()
        frames.alwaysDiscardsLateVideoFrames = false
        let recorder = SampleRecorder(label: "tests.preroll.sound")
        recorder.attach(to: frames)
        let session = CaptureSession()
        try session.configure {
            for device in devices.all { try session.addInput(CaptureDeviceInput(device: device)) }
            try session.addOutput(frames)
            try session.addOutput(preRoll)
        }
        let (clips, start) = try await Self.firstClip(session, preRoll, recorder)
        let clip = try #require(clips.first)
        #expect(clip.reason == "sound")
        // The tone starts 3 s into the movie: the trigger is where the loud stretch began (the
        // first buffer holding it, a few milliseconds of AAC before it at most).
        let into = (clip.triggerTime - start).seconds
        #expect(into > 2.9 && into <= 3.05, "triggered \(into) s into the movie")
        #expect((clip.triggerTime - clip.startTime).seconds >= 1 - 1e-6, "the clip holds the second before the sound")
        #expect(clip.duration.seconds >= 1.5, "\(clip.duration.seconds) s")
    }

    @Test func aCodeInViewStartsAClip() async throws {
        // Unpaced: the scanner and the ring hold the camera back, so every frame is scanned and
        // every frame with the code triggers before the next one is made, however loaded the
        // machine (a live camera's scanner skips frames it has no time for).
        let camera = try makeCodeCamera("code trigger", frames: try qrCodeLoop(blank: 30, shown: 30), pacing: .unpaced)
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let metadata = CaptureMetadataOutput()
        let preRoll = CapturePreRollOutput()
        try preRoll.setClipFolder(try Self.folder("code-clips"))
        try preRoll.setDurations(preRoll: MediaTime(value: 1, timescale: 2), postRoll: MediaTime(value: 1, timescale: 2),
                                 longestClip: MediaTime(value: 10, timescale: 1))
        preRoll.triggersOnCodes(from: metadata)
        let library = try MediaLibrary(root: LibraryFixtures.root("code-clips"))
        preRoll.setClipLibrary(library)
        let frames = CaptureVideoDataOutput()
        let recorder = SampleRecorder(label: "tests.preroll.code")
        recorder.attach(to: frames)
        let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [frames, metadata, preRoll])
        try metadata.setMetadataObjectTypes([.qr])
        let (clips, start) = try await Self.firstClip(session, preRoll, recorder)
        let clip = try #require(clips.first)
        #expect(clip.reason == "code qr")
        // The code shows in the second half of every two seconds of the camera's loop.
        let phase = (clip.triggerTime - start).seconds.truncatingRemainder(dividingBy: 2)
        #expect(phase >= 1 - 0.001 && phase < 2, "triggered \(phase) s into a loop")
        // The clip lasts while the code is in view (1 s) and the post-roll after it.
        #expect(clip.duration.seconds >= 1.2, "\(clip.duration.seconds) s")
        #expect(metadata.statistics.skippedFrames == 0, "a held-back camera's frames are all scanned: \(metadata.statistics)")
        // Saved into the library, its thumbnail (the trigger's frame) beside where it was
        // written: zbarimg reads the code in it.
        let asset = try #require(clip.asset)
        #expect(try library.asset(id: asset.id)?.fileURL == clip.url && FileManager.default.fileExists(atPath: clip.url.path))
        let thumbnail = try #require(clip.thumbnailURL)
        let size = try FileFixtures.ffprobe(thumbnail, stream: "v:0", entries: "width,height")
        #expect(size["width"] == "320" && size["height"] == "240", "\(size)")
        let read = String(decoding: try FileFixtures.run("zbarimg", ["--raw", "-q", thumbnail.path]), as: UTF8.self)
        #expect(read.trimmingCharacters(in: .whitespacesAndNewlines) == MetadataFixtures.payloads[.qr]?.payload, "zbarimg: \(read)")
    }
}

/// The sound trigger's decisions over a run of 0.1 s buffers.
struct SoundTriggerStateTests {
    private func time(_ tenths: Int64) -> MediaTime { MediaTime(value: tenths, timescale: 10) }

    /// Loud for the minimum duration fires at the stretch's start; going on fires again a
    /// second later; quiet re-arms, and a click shorter than the minimum never fires.
    @Test func firesAtTheStartOfALoudStretchAgainEverySecondAndNotOnAClick() {
        var state = SoundTriggerState(SoundTrigger(threshold: -30, minimumDuration: MediaTime(value: 3, timescale: 10)))
        let tenth = time(1)
        let levels: [Float] = [-60] + Array(repeating: -20, count: 14) + [-60, -20, -60, -60]
        var fired: [Int: MediaTime] = [:]
        for (index, level) in levels.enumerated() {
            if let due = state.hear(level: level, at: time(Int64(index)), duration: tenth) { fired[index] = due }
        }
        // Loud from 0.1 s: 0.3 s of it by the end of the buffer at 0.3 s (0.4 s), triggered at
        // 0.1 s; a second after that decision (the end of the buffer at 1.3 s) again, at 1.4 s;
        // quiet at 1.5 s, and the lone loud buffer at 1.6 s is a click.
        #expect(fired == [3: time(1), 13: time(14)], "\(fired)")
    }
}
