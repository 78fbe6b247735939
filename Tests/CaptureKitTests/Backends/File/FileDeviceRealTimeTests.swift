import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// File-backed devices paced in real time, and in capture sessions.
    @Suite(.serialized)
    struct FileDeviceRealTimeTests {
        @Test func realTimePacingDeliversThirtyFramesASecond() async throws {
            let url = try FileFixtures.mp4()
            let devices = try CaptureDevice.makeFileDevices(contentsOf: url, options: fileOptions(.realTime))
            defer { devices.remove() }
            let recorder = try DeviceStreamRecorder(try #require(devices.video))
            #expect(await recorder.samples.wait(forCount: 31, timeout: .seconds(5)))
            recorder.stop()
            let received = Array(recorder.samples.items.prefix(31))
            try #require(received.count == 31)
            // 30 frame intervals of the file take one second of wall time, give or take a
            // loaded machine; a paced stream never runs ahead.
            let span = Double(received[30].arrival - received[0].arrival) / 1e9
            #expect(span > 0.9 && span < 1.4, "30 frames in \(span) s")
            #expect(received[30].sample.presentationTimeStamp - received[0].sample.presentationTimeStamp == MediaTime(value: 1, timescale: 1))
            for item in received {
                let due = try #require((item.sample.presentationTimeStamp + item.sample.duration).nanoseconds)
                #expect(item.arrival >= due - 1_000_000, "delivered \(Double(due - item.arrival) / 1e6) ms before its frame ended")
            }
            let lateness = received.compactMap { item in (item.sample.presentationTimeStamp + item.sample.duration).nanoseconds.map { item.arrival - $0 } }
            let meanLateness = Double(lateness.reduce(0, +)) / Double(lateness.count) / 1e6
            #expect(meanLateness < 50, "frames arrive \(meanLateness) ms after they are due on average")
        }

        @Test func sessionReportsTheEndAndKeepsRunning() async throws {
            let url = try FileFixtures.short()
            let devices = try CaptureDevice.makeFileDevices(contentsOf: url, options: fileOptions(.realTime))
            defer { devices.remove() }
            let camera = try #require(devices.video)
            let output = CaptureVideoDataOutput()
            let recorder = SampleRecorder(label: "tests.file.end")
            recorder.attach(to: output)
            let session = try makeSession(camera: camera, outputs: [output])
            #expect(camera.activeFormat.width == 160)
            let events = EventRecorder(session)
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await events.wait(for: .deviceReachedEnd(camera.uniqueID), timeout: .seconds(5)))
            #expect(session.state == .running, "the end of one device's file does not stop the session")
            // Every frame of the file reached the output, delivered or counted as dropped.
            #expect(await recorder.samples.wait(timeout: .seconds(2)) { _ in output.statistics.delivered + output.statistics.dropped == 15 })
            #expect(recorder.samples.items.map(\.sequenceNumber).allSatisfy { $0 < 15 })
            try await session.stop()
            #expect(await events.wait(for: .didStopRunning))
            #expect(events.events.items == [.didStartRunning, .deviceReachedEnd(camera.uniqueID), .didStopRunning])
        }

        @Test func pictureAndSoundOfOneFileShareTheirStart() async throws {
            let url = try FileFixtures.mp4()
            let devices = try CaptureDevice.makeFileDevices(contentsOf: url, options: fileOptions(.realTime))
            defer { devices.remove() }
            let camera = try #require(devices.video), microphone = try #require(devices.audio)
            let video = CaptureVideoDataOutput(), audio = CaptureAudioDataOutput()
            let frames = SampleRecorder(label: "tests.file.sync.video"), sound = SampleRecorder(label: "tests.file.sync.audio")
            frames.attach(to: video)
            sound.attach(to: audio)
            let session = try makeSession(camera: camera, outputs: [video, audio])
            session.beginConfiguration()
            try session.addInput(CaptureDeviceInput(device: microphone))
            try session.commitConfiguration()
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await frames.samples.wait(forCount: 3))
            #expect(await sound.samples.wait(forCount: 3))
            try await session.stop()
            let firstFrame = try #require(frames.samples.items.first?.sample)
            let firstSound = try #require(sound.samples.items.first?.sample)
            try #require(firstFrame.sequenceNumber == 0 && firstSound.sequenceNumber == 0)
            // Both start at the file's zero; the streams opened one after the other, yet their
            // timelines agree to well within one video frame.
            let offset = abs((firstFrame.presentationTimeStamp - firstSound.presentationTimeStamp).seconds)
            #expect(offset < 0.0005, "audio and video of one file are \(offset * 1000) ms apart")
        }

        @Test func damagedFileStopsTheSessionWithACorruptFileError() async throws {
            let url = try FileFixtures.truncated()
            let devices = try CaptureDevice.makeFileDevices(contentsOf: url, options: fileOptions(.unpaced))
            defer { devices.remove() }
            let camera = try #require(devices.video)
            let session = try makeSession(camera: camera, outputs: [CaptureVideoDataOutput()])
            let events = EventRecorder(session)
            try await session.start()
            #expect(await events.wait(for: .didStopRunning, timeout: .seconds(10)))
            #expect(events.events.items == [.didStartRunning, .runtimeError(.corruptFile), .didStopRunning])
            #expect(session.state == .idle)
        }
    }
}
