import Foundation
import Testing
@testable import CaptureKit

/// File-backed devices, unpaced (as fast as they decode) and straight from their backends, so
/// every sample can be checked against what ffmpeg and ffprobe say about the same file (made by
/// the ffmpeg command line).
@Suite("FileDevice", .timeLimit(.minutes(2)), .tags(.childProcess), .excludable)
struct FileDeviceTests {
    // MARK: Video

    @Test func unpacedCameraDeliversEveryFrameOnce() async throws {
        let url = try FileFixtures.mp4()
        let devices = try CaptureDevice.makeFileDevices(contentsOf: url, options: fileOptions(.unpaced))
        defer { devices.remove() }
        let camera = try #require(devices.video)
        let expected = try #require(Int(FileFixtures.ffprobe(url, stream: "v:0", entries: "nb_read_frames")["nb_read_frames"] ?? ""))
        #expect(expected == 60)

        let started = MonotonicClock.nanoseconds()
        let recorder = try DeviceStreamRecorder(camera)
        #expect(await recorder.waitForEnd())
        #expect(recorder.events.items == [.endOfStream])
        let samples = recorder.samples.items.map(\.sample)
        #expect(samples.count == expected)
        #expect(samples.map(\.sequenceNumber) == (0..<UInt64(samples.count)).map { $0 })
        let frame = MediaTime(value: 1, timescale: 30)
        for (previous, next) in zip(samples, samples.dropFirst()) {
            // MP4's 1/15360 time base holds 1/30 s exactly.
            #expect(next.presentationTimeStamp - previous.presentationTimeStamp == frame)
        }
        #expect(samples.allSatisfy { $0.duration == frame })
        #expect(samples.allSatisfy { $0.pixelBuffer?.width == 320 && $0.pixelBuffer?.height == 240 && $0.pixelBuffer?.pixelFormat == .yuv420p })
        // Stamped on the monotonic clock from when the stream started.
        let first = try #require(samples.first?.presentationTimeStamp.nanoseconds)
        #expect(first >= started && first <= MonotonicClock.nanoseconds())
    }

    @Test func matroskaTimestampsAreMonotonicAndFrameSpaced() async throws {
        let url = try FileFixtures.mkv()
        let devices = try CaptureDevice.makeFileDevices(contentsOf: url, options: fileOptions(.unpaced))
        defer { devices.remove() }
        let recorder = try DeviceStreamRecorder(try #require(devices.video))
        #expect(await recorder.waitForEnd())
        let times = recorder.samples.items.map { $0.sample.presentationTimeStamp.seconds }
        #expect(times.count == 60)
        // Matroska counts milliseconds: 33 or 34 ms apart, never out of order.
        for (previous, next) in zip(times, times.dropFirst()) {
            #expect(next > previous)
            #expect(abs((next - previous) - 1.0 / 30) < 0.001, "frames \(previous) → \(next)")
        }
    }

    @Test(arguments: ["mp4", "mkv"])
    func firstFrameIsWhatFFmpegDecodes(_ kind: String) async throws {
        let url = try kind == "mp4" ? FileFixtures.mp4() : FileFixtures.mkv()
        let devices = try CaptureDevice.makeFileDevices(contentsOf: url, options: fileOptions(.unpaced))
        defer { devices.remove() }
        let recorder = try DeviceStreamRecorder(try #require(devices.video))
        #expect(await recorder.samples.wait(forCount: 1))
        recorder.stop()
        let frame = try #require(recorder.samples.items.first?.sample.pixelBuffer)
        let reference = try FileFixtures.ffmpegFirstFrame(url)
        let captured = frame.packedBytes()
        #expect(captured.count == reference.count)
        // The same decoder on the same data: identical, not just close.
        #expect(FileFixtures.psnr(captured, reference) > 45)
        #expect(captured == reference)
    }

    @Test func unsupportedLayoutIsConvertedToI420() async throws {
        let url = try FileFixtures.yuv444()
        let devices = try CaptureDevice.makeFileDevices(contentsOf: url, options: fileOptions(.unpaced))
        defer { devices.remove() }
        let camera = try #require(devices.video)
        #expect(camera.formats.map(\.pixelFormat) == [.yuv420p])
        let recorder = try DeviceStreamRecorder(camera)
        #expect(await recorder.waitForEnd())
        #expect(recorder.samples.count == 15)
        let frame = try #require(recorder.samples.items.first?.sample.pixelBuffer)
        #expect(frame.pixelFormat == .yuv420p && frame.width == 160 && frame.height == 120)
        let psnr = FileFixtures.psnr(frame.packedBytes(), try FileFixtures.ffmpegFirstFrame(url))
        #expect(psnr > 45, "PSNR against ffmpeg's own 4:4:4 → 4:2:0 conversion: \(psnr) dB")
    }

    @Test func loopingKeepsCountingAndReplaysTheFile() async throws {
        let url = try FileFixtures.short()
        let devices = try CaptureDevice.makeFileDevices(contentsOf: url, options: fileOptions(.unpaced, looping: true))
        defer { devices.remove() }
        let recorder = try DeviceStreamRecorder(try #require(devices.video))
        #expect(await recorder.samples.wait(forCount: 40))
        recorder.stop()
        let samples = recorder.samples.items.map(\.sample)
        #expect(recorder.events.items.isEmpty, "a looping file never ends: \(recorder.events.items)")
        #expect(samples.map(\.sequenceNumber).prefix(40) == ArraySlice((0..<40).map { UInt64($0) }))
        let frame = MediaTime(value: 1, timescale: 30)
        for (previous, next) in zip(samples, samples.dropFirst()) {
            // Also across the loop (15 frames a pass): each pass starts where the last ended.
            #expect(next.presentationTimeStamp - previous.presentationTimeStamp == frame)
        }
        let firstPass = try #require(samples[0].pixelBuffer), secondPass = try #require(samples[15].pixelBuffer)
        #expect(firstPass.hasSamePixels(as: secondPass))
        #expect(!(try #require(samples[1].pixelBuffer)).hasSamePixels(as: firstPass))
    }

    // MARK: Audio

    @Test func pcmAudioIsContiguousCompleteAndExact() async throws {
        let url = try FileFixtures.mkv()
        let devices = try CaptureDevice.makeFileDevices(contentsOf: url, options: fileOptions(.unpaced))
        defer { devices.remove() }
        let microphone = try #require(devices.audio)
        #expect(microphone.formats.compactMap(\.audioFormat) == [
            AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .s16),
            AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .f32),
        ])
        let recorder = try DeviceStreamRecorder(microphone)
        #expect(await recorder.waitForEnd())
        #expect(recorder.events.items == [.endOfStream])
        let samples = recorder.samples.items.map(\.sample)
        try #require(!samples.isEmpty)
        try checkContiguous(samples)
        let values = samples.flatMap { sample in
            sample.audioBuffer.map { buffer in buffer.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) } } ?? []
        }
        let reference = try FileFixtures.ffmpegSamples(url)
        #expect(reference.count == 96_000)
        #expect(values.count == reference.count)
        #expect(values == reference, "PCM decodes to the very samples ffmpeg gets")
    }

    @Test func aacAudioCountsTheFileSamplesWithinPriming() async throws {
        let url = try FileFixtures.mp4()
        let devices = try CaptureDevice.makeFileDevices(contentsOf: url, options: fileOptions(.unpaced))
        defer { devices.remove() }
        let microphone = try #require(devices.audio)
        #expect(microphone.activeFormat.audioFormat == AudioFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .f32))
        let recorder = try DeviceStreamRecorder(microphone)
        #expect(await recorder.waitForEnd())
        let samples = recorder.samples.items.map(\.sample)
        try checkContiguous(samples)
        let count = samples.compactMap(\.audioBuffer).reduce(0) { $0 + $1.frameCount }
        #expect(abs(count - 96_000) <= 2048, "\(count) samples for a 2 s file")
        // A 440 Hz tone at ffmpeg's sine level (1/8 full scale) came through.
        let peak = samples.compactMap(\.audioBuffer).flatMap { $0.floatSamples() }.map(abs).max() ?? 0
        #expect(peak > 0.1 && peak < 0.2)
    }

    @Test func loopingAudioStaysContiguous() async throws {
        let url = try FileFixtures.audioOnly()
        let devices = try CaptureDevice.makeFileDevices(contentsOf: url, options: fileOptions(.unpaced, looping: true))
        defer { devices.remove() }
        #expect(devices.video == nil)
        let recorder = try DeviceStreamRecorder(try #require(devices.audio))
        // 1 s a pass: 150 buffers of 1024 samples take three passes.
        #expect(await recorder.samples.wait(forCount: 150))
        recorder.stop()
        try checkContiguous(recorder.samples.items.map(\.sample))
    }

    /// Each buffer starts where the previous ended, in the sample rate's timescale, and its
    /// sequence number is its first sample's index.
    private func checkContiguous(_ samples: [SampleBuffer]) throws {
        var expectedSequence: UInt64 = 0
        for (index, sample) in samples.enumerated() {
            let buffer = try #require(sample.audioBuffer)
            #expect(sample.presentationTimeStamp.timescale == 48_000)
            #expect(sample.duration == MediaTime(value: Int64(buffer.frameCount), timescale: 48_000))
            #expect(sample.sequenceNumber == expectedSequence)
            expectedSequence += UInt64(buffer.frameCount)
            if index > 0 {
                let previous = samples[index - 1]
                #expect(previous.presentationTimeStamp + previous.duration == sample.presentationTimeStamp, "gap before buffer \(index)")
            }
        }
    }

    // MARK: Discovery

    @Test func fileDevicesAreDiscoverableButNeverDefault() throws {
        let url = try FileFixtures.mp4()
        var options = FileDeviceOptions()
        options.name = "Door Clip"
        options.uniqueID = "test-door-\(UUID().uuidString.prefix(8))"
        let devices = try CaptureDevice.makeFileDevices(contentsOf: url, options: options)
        let camera = try #require(devices.video), microphone = try #require(devices.audio)
        #expect(camera.uniqueID == "\(options.uniqueID ?? "")#video")
        #expect(microphone.uniqueID == "\(options.uniqueID ?? "")#audio")
        #expect(camera.localizedName == "Door Clip")
        #expect(camera.deviceType == .file && microphone.deviceType == .file)
        #expect(camera.isVirtual, "not hardware")
        #expect(camera.hasMediaType(.video) && !camera.hasMediaType(.audio))
        #expect(camera.formats == [CaptureDevice.Format(pixelFormat: .yuv420p, width: 320, height: 240, frameRateRanges: [.init(fps: 30)])])
        #expect(camera.activeVideoMinFrameDuration == MediaTime(value: 1, timescale: 30))
        #expect(CaptureDevice.device(uniqueID: camera.uniqueID) === camera)
        let files = CaptureDevice.DiscoverySession(deviceTypes: [.file], mediaType: nil, position: .unspecified).devices
        #expect(files.contains(camera) && files.contains(microphone))
        #expect(!CaptureDevice.DiscoverySession(deviceTypes: [.virtual], mediaType: .video, position: .unspecified).devices.contains(camera))
        #expect(CaptureDevice.default(for: .video)?.deviceType != .file)
        #expect(CaptureDevice.default(for: .audio)?.deviceType != .file)

        // The same IDs again are refused; after removal they are free.
        let clash = #expect(throws: CaptureError.self) { try CaptureDevice.makeFileDevices(contentsOf: url, options: options) }
        #expect(clash?.code == .invalidArgument)
        devices.remove()
        #expect(CaptureDevice.device(uniqueID: camera.uniqueID) == nil)
        #expect(CaptureDevice.device(uniqueID: microphone.uniqueID) == nil)
        let again = try CaptureDevice.makeFileDevices(contentsOf: url, options: options)
        again.remove()
    }

    @Test func aFilesDevicesAreFoundAgainByTheFile() throws {
        // A private copy: the default unique IDs are the file's path.
        let scratch = try PhotoScratch()
        let copy = URL(fileURLWithPath: scratch.path + "/door clip.mp4")
        try FileManager.default.copyItem(at: try FileFixtures.mp4(), to: copy)
        #expect(CaptureDevice.fileDevices(playing: copy) == nil, "nothing made yet")
        let devices = try CaptureDevice.makeFileDevices(contentsOf: copy)
        let found = try #require(CaptureDevice.fileDevices(playing: URL(fileURLWithPath: scratch.path + "/./door clip.mp4")))
        #expect(found.video === devices.video && found.audio === devices.audio, "the same devices, by the standardized path")
        #expect(CaptureDevice.fileDevices(playing: try FileFixtures.mkv()) == nil, "another file's devices are not these")
        devices.remove()
        #expect(CaptureDevice.fileDevices(playing: copy) == nil, "removed")
    }

    @Test func defaultUniqueIDIsTheAbsolutePath() throws {
        let url = try FileFixtures.short()
        // A relative URL names the same file and the same devices.
        let relative = URL(fileURLWithPath: url.lastPathComponent, relativeTo: url.deletingLastPathComponent())
        let devices = try CaptureDevice.makeFileDevices(contentsOf: relative)
        defer { devices.remove() }
        #expect(devices.audio == nil)
        #expect(devices.video?.uniqueID == "file:\(url.standardizedFileURL.path)#video")
        #expect(devices.video?.localizedName == "short.mp4")
    }

    // MARK: Errors

    @Test func fileDamagedMidStreamFailsAfterItsGoodFrames() async throws {
        let url = try FileFixtures.truncated()
        let devices = try CaptureDevice.makeFileDevices(contentsOf: url, options: fileOptions(.unpaced))
        defer { devices.remove() }
        let recorder = try DeviceStreamRecorder(try #require(devices.video))
        #expect(await recorder.waitForEnd())
        #expect(recorder.events.items == [.failed(.corruptFile)])
        let delivered = recorder.samples.count
        #expect(delivered > 0 && delivered < 60, "\(delivered) good frames before the damage")
    }

    @Test func fileDeletedAfterMakingFailsToStart() throws {
        let source = try FileFixtures.short()
        let copy = FileFixtures.directory.appendingPathComponent("deleted-\(UUID().uuidString.prefix(8)).mp4")
        try FileManager.default.copyItem(at: source, to: copy)
        let devices = try CaptureDevice.makeFileDevices(contentsOf: copy, options: fileOptions(.unpaced))
        defer { devices.remove() }
        try FileManager.default.removeItem(at: copy)
        let camera = try #require(devices.video)
        let error = #expect(throws: CaptureError.self) { _ = try DeviceStreamRecorder(camera) }
        #expect(error?.code == .fileError)
        #expect(error?.path == copy.path)
    }
}

/// File devices refused up front: files that are missing or are not media, made in-process.
@Suite("FileDevice errors", .timeLimit(.minutes(1)), .excludable)
struct FileDeviceErrorTests {
    @Test func missingFileIsAFileErrorWithItsPath() throws {
        let path = FileFixtures.directory.appendingPathComponent("missing.mp4").path
        let error = #expect(throws: CaptureError.self) { try CaptureDevice.makeFileDevices(contentsOf: URL(fileURLWithPath: path)) }
        #expect(error?.code == .fileError)
        #expect(error?.errno == ENOENT)
        #expect(error?.path == path)
        let directory = #expect(throws: CaptureError.self) { try CaptureDevice.makeFileDevices(contentsOf: FileFixtures.directory) }
        #expect(directory?.code == .fileError)
    }

    @Test func notMediaIsUnsupported() throws {
        let noise = try FileFixtures.noise()
        let error = #expect(throws: CaptureError.self) { try CaptureDevice.makeFileDevices(contentsOf: noise) }
        #expect(error?.code == .unsupportedFile)
        #expect(error?.path == noise.path)
        let subtitles = try FileFixtures.subtitles()
        let neither = #expect(throws: CaptureError.self) { try CaptureDevice.makeFileDevices(contentsOf: subtitles) }
        #expect(neither?.code == .unsupportedFile)
        #expect(neither?.message.contains("neither a video nor an audio stream") == true)
    }
}
