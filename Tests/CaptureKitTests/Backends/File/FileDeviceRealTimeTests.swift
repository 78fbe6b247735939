import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// File-backed devices paced in real time, and in capture sessions (files made by the
    /// ffmpeg command line). A paced file device never drops: a late sample is sent at once, so
    /// what a loaded machine changes is only when samples arrive, never which or with what time.
    @Suite(.serialized, .tags(.childProcess))
    struct FileDeviceRealTimeTests {
        @Test func realTimePacingDeliversEachFrameOnceItsSpanHasPassed() async throws {
            let url = try FileFixtures.mp4()
            let devices = try CaptureDevice.makeFileDevices(contentsOf: url, options: fileOptions(.realTime))
            defer { devices.remove() }
            let started = MonotonicClock.nanoseconds()
            let recorder = try DeviceStreamRecorder(try #require(devices.video))
            #expect(await recorder.samples.wait(forCount: 31, timeout: .seconds(30)))
            recorder.stop()
            let received = Array(recorder.samples.items.prefix(31))
            try #require(received.count == 31)
            #expect(recorder.events.items.isEmpty, "a paced file device neither drops nor ends early: \(recorder.events.items)")
            // Every frame once, in order, stamped with the file's own time from the stream's
            // start: 30 frame intervals of the file are one second of timestamps, however
            // irregularly the machine delivered them.
            let frame = MediaTime(value: 1, timescale: 30)
            #expect(received.map(\.sample.sequenceNumber) == (0...30).map { UInt64($0) })
            for (previous, next) in zip(received, received.dropFirst()) {
                #expect(next.sample.presentationTimeStamp - previous.sample.presentationTimeStamp == frame)
                #expect(next.arrival >= previous.arrival)
            }
            #expect(received.allSatisfy { $0.sample.duration == frame })
            let first = try #require(received[0].sample.presentationTimeStamp.nanoseconds)
            #expect(first >= started, "the stream's zero is when it started, not before")
            // Paced, so never ahead of the file: a frame is delivered once its whole span has
            // passed on the monotonic clock (how late is the machine's business).
            for item in received {
                let due = try #require((item.sample.presentationTimeStamp + item.sample.duration).nanoseconds)
                #expect(item.arrival >= due - 1_000_000, "delivered \(Double(due - item.arrival) / 1e6) ms before its frame ended")
            }
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
            #expect(await events.wait(for: .deviceReachedEnd(camera.uniqueID), timeout: .seconds(30)))
            #expect(session.state == .running, "the end of one device's file does not stop the session")
            // Every frame of the file reached the delegate, delivered or reported dropped (the
            // output's counters are updated after its delegate returns, so what the delegate
            // heard is what is waited for).
            let heard: @Sendable ([DeliveryEvent]) -> Int = { events in
                events.reduce(0) { total, event in
                    switch event {
                    case .sample: total + 1
                    case .drop(let frame): total + frame.count
                    }
                }
            }
            #expect(await recorder.log.wait(timeout: .seconds(30)) { heard($0) == 15 }, "\(heard(recorder.log.items)) of 15: \(recorder.accounting)")
            #expect(recorder.samples.items.map(\.sequenceNumber).allSatisfy { $0 < 15 })
            #expect(recorder.accounting.isComplete, "\(recorder.accounting)")
            let times = FrameTimestamps(recorder.samples.items, frameDuration: MediaTime(value: 1, timescale: 30))
            #expect(times.isExact, "\(times)")
            try await session.stop()
            #expect(await events.wait(for: .didStopRunning, timeout: .seconds(30)))
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
            #expect(await frames.samples.wait(forCount: 3, timeout: .seconds(30)))
            #expect(await sound.samples.wait(forCount: 3, timeout: .seconds(30)))
            try await session.stop()
            // Where each stream puts the file's zero: any delivered sample's time less what its
            // sequence number says lies before it (frames of 1/30 s, audio counted in samples),
            // so it does not matter which samples a busy machine had the outputs drop.
            let frame = try #require(frames.samples.items.first?.sample)
            let buffer = try #require(sound.samples.items.first?.sample)
            let videoZero = frame.presentationTimeStamp - MediaTime(value: Int64(frame.sequenceNumber), timescale: 30)
            let audioZero = buffer.presentationTimeStamp - MediaTime(value: Int64(buffer.sequenceNumber), timescale: 48_000)
            // Both start at the file's zero; the streams opened one after the other, yet their
            // timelines agree to well within one video frame.
            let offset = abs((videoZero - audioZero).seconds)
            #expect(offset < 0.0005, "audio and video of one file are \(offset * 1000) ms apart")
            #expect(frames.accounting.isComplete, "\(frames.accounting)")
            let times = FrameTimestamps(frames.samples.items, frameDuration: MediaTime(value: 1, timescale: 30))
            #expect(times.isExact, "\(times)")
        }

        @Test func damagedFileStopsTheSessionWithACorruptFileError() async throws {
            let url = try FileFixtures.truncated()
            let devices = try CaptureDevice.makeFileDevices(contentsOf: url, options: fileOptions(.unpaced))
            defer { devices.remove() }
            let camera = try #require(devices.video)
            let session = try makeSession(camera: camera, outputs: [CaptureVideoDataOutput()])
            let events = EventRecorder(session)
            try await session.start()
            #expect(await events.wait(for: .didStopRunning, timeout: .seconds(30)))
            #expect(events.events.items == [.didStartRunning, .runtimeError(.corruptFile), .didStopRunning])
            #expect(session.state == .idle)
        }
    }
}
