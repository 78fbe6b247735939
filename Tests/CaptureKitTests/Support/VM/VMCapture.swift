import Foundation
import Testing
@testable import CaptureKit

/// Sessions on the VM's cameras in one exact format, and what the suites wait for.
enum VMCapture {
    /// `device`'s format with `fourCC` at `width`x`height`; fails the test when it has none.
    static func format(_ device: CaptureDevice, fourCC: String, width: Int, height: Int,
                       sourceLocation: SourceLocation = #_sourceLocation) throws -> CaptureDevice.Format {
        try #require(device.formats.first { $0.fourCC == fourCC && $0.width == width && $0.height == height },
                     "\(device) has no \(fourCC) \(width)x\(height); it has \(device.formats)", sourceLocation: sourceLocation)
    }

    /// Applies `format` at `fps` (the highest rate the format offers when nil) to `device`.
    static func configure(_ device: CaptureDevice, _ format: CaptureDevice.Format, fps: Int32? = nil) throws(CaptureError) {
        try device.lockForConfiguration()
        defer { device.unlockForConfiguration() }
        try device.setActiveFormat(format)
        try device.setActiveVideoMinFrameDuration(fps.map { MediaTime(value: 1, timescale: $0) } ?? format.minFrameDuration)
    }

    /// A committed session (not running) capturing `device` in its active format.
    static func session(_ device: CaptureDevice, outputs: [CaptureOutput]) throws -> CaptureSession {
        try makeSession(camera: device, preset: .inputPriority, outputs: outputs)
    }

    /// A raw photo from `device` streaming Bayer `format` (at `fps`, as ``configure(_:_:fps:)``),
    /// taken by a photo output that offers exactly that format raw.
    static func rawPhoto(_ device: CaptureDevice, _ format: CaptureDevice.Format, fps: Int32? = nil,
                         sourceLocation: SourceLocation = #_sourceLocation) async throws -> CapturePhoto {
        let bayer = try #require(format.pixelFormat, sourceLocation: sourceLocation)
        try configure(device, format, fps: fps)
        let output = CapturePhotoOutput()
        let session = try session(device, outputs: [output])
        try await session.start()
        defer { try? session.stopRunning() }
        #expect(output.availableRawPhotoPixelFormatTypes == [bayer], sourceLocation: sourceLocation)
        let photo = try await output.capturePhoto(with: CapturePhotoSettings(rawPixelFormat: bayer))
        #expect(photo.isRawPhoto, sourceLocation: sourceLocation)
        try await session.stop()
        return photo
    }

    /// Runs a session with one video data output (delivering `settings`) on `device` until its
    /// delegate got `count` frames, stops it and returns what the delegate recorded; fails the
    /// test when the frames do not come within `timeout`.
    static func frames(_ device: CaptureDevice, count: Int, settings: VideoTarget = VideoTarget(), timeout: Duration = .seconds(30),
                       sourceLocation: SourceLocation = #_sourceLocation) async throws -> (recorder: SampleRecorder, output: CaptureVideoDataOutput) {
        let (session, recorder, output) = try await running(device, settings: settings)
        defer { try? session.stopRunning() }
        #expect(await recorder.samples.wait(forCount: count, timeout: timeout), "frames delivered: \(recorder.samples.count)",
                sourceLocation: sourceLocation)
        try await session.stop()
        return (recorder, output)
    }

    /// A started session with one video data output (delivering `settings`) on `device`, and
    /// the delegate recording what it delivers. Stop it with `stop()` (or `stopRunning()`).
    static func running(_ device: CaptureDevice, settings: VideoTarget = VideoTarget()) async throws
        -> (session: CaptureSession, recorder: SampleRecorder, output: CaptureVideoDataOutput) {
        let output = CaptureVideoDataOutput()
        output.videoSettings = settings
        let recorder = SampleRecorder()
        recorder.attach(to: output)
        let session = try session(device, outputs: [output])
        try await session.start()
        return (session, recorder, output)
    }

    /// Checks that `recorder`'s frames carry the kernel's capture times on the session clock
    /// (monotonic), in order: each captured after the stream started and before it arrived, and
    /// every frame accounted for.
    static func expectKernelTimes(_ recorder: SampleRecorder, since streamStart: Int64, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let stamps = recorder.samples.items.map(\.sample.presentationTimeStamp)
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 }, sourceLocation: sourceLocation)
        #expect(recorder.accounting.isComplete, "\(recorder.accounting)", sourceLocation: sourceLocation)
        for received in recorder.samples.items {
            let captured = try #require(received.sample.presentationTimeStamp.nanoseconds, sourceLocation: sourceLocation)
            #expect(captured >= streamStart && captured <= received.arrival,
                    "frame \(received.sequenceNumber) stamped \(captured) ns; stream started \(streamStart) ns, frame arrived \(received.arrival) ns",
                    sourceLocation: sourceLocation)
        }
    }
}
