import Foundation
import Testing
@testable import CaptureKit

/// The motion output in a session: an unpaced virtual camera plays a scripted scene (held back,
/// every frame is analysed, so frame numbers are exact), a video data output beside it gives
/// the frames' times.
@Suite(.excludable, .serialized)
struct MotionOutputTests {
    /// 320×180 frames; a 32×24 object at (200, 90) in frames 45..<90 of a 90-frame loop.
    static let width = 320, height = 180
    static let appears = 45

    private static func scene() -> MotionScene {
        var scene = MotionScene(width: width, height: height, noise: 3)
        scene.objects = [MotionScene.Object(x: 200, y: 90, width: 32, height: 24, level: 235, frames: appears..<90)]
        return scene
    }

    private final class EventRecorder: CaptureMotionOutputDelegate {
        let events = Recorder<MotionEvent>()
        func motionOutput(_ output: CaptureMotionOutput, didOutput event: MotionEvent, from connection: CaptureConnection) {
            events.append(event)
        }
    }

    private struct Rig {
        let camera: CaptureDevice
        let session: CaptureSession
        let motion = CaptureMotionOutput()
        let video = CaptureVideoDataOutput()
        let frames = SampleRecorder()
        let delegate = EventRecorder()

        init(_ label: String, rotation: Double = 0, format: PixelFormat = .nv12,
             configure: (CaptureMotionOutput) throws -> Void = { _ in }) throws {
            let scene = MotionOutputTests.scene()
            let pictures = try (0..<90).map { try scene.pixelBuffer($0, format: format) }
            camera = try makeTestCamera(label) {
                $0.sizes = [.init(width: MotionOutputTests.width, height: MotionOutputTests.height)]
                $0.pixelFormats = [format]
                $0.content = .frames(pictures)
                $0.pacing = .unpaced
            }
            try configure(motion)
            motion.setMotionDelegate(delegate, queue: DispatchQueue(label: "tests.motion"))
            video.setSampleBufferDelegate(frames, queue: frames.queue)
            session = try makeSession(camera: camera, outputs: [video, motion])
            try motion.connection(with: .video)?.setVideoRotationAngle(rotation)
        }
    }

    /// NV12 (the luma plane scaled in place) and YUYV (its luma pulled out first), upright and
    /// turned a quarter.
    @Test(arguments: [(0.0, PixelFormat.nv12), (90.0, .nv12), (0.0, .yuyv422)])
    func anObjectAppearingIsReportedInItsFrameWithABoxAroundIt(rotation: Double, format: PixelFormat) async throws {
        let rig = try Rig("motion", rotation: rotation, format: format)
        defer { CaptureDevice.removeVirtualDevice(rig.camera) }
        let stream = rig.motion.motionEvents
        try await rig.session.start()
        var streamed: MotionEvent?
        for await event in stream where event.phase == .began { streamed = event; break }
        #expect(await rig.delegate.events.wait { $0.contains { $0.phase == .began } })
        try await rig.session.stop()

        let began = try #require(streamed)
        #expect(rig.delegate.events.items.first == began, "the delegate and the stream tell the same")
        // The video output may have skipped frames of the unpaced camera, but any frame it got
        // names the camera's frame numbers: its sequence number at its time, 1/30 s apart.
        let reference = try #require(rig.frames.samples.items.first)
        let offset = (began.presentationTimeStamp - reference.sample.presentationTimeStamp).convertScale(30)
        let frame = Int64(reference.sequenceNumber) + offset.value
        #expect(began.presentationTimeStamp == reference.sample.presentationTimeStamp + MediaTime(value: offset.value, timescale: 30),
                "motion began at \(began.presentationTimeStamp), no frame's time")
        #expect(frame == Int64(Self.appears),
                "motion began in frame \(frame) of the scene; the object appeared in frame \(Self.appears)")
        // The object, in metadata coordinates: as drawn, or turned a quarter clockwise.
        let drawn = CGRect(x: 200.0 / 320, y: 90.0 / 180, width: 32.0 / 320, height: 24.0 / 180)
        let expected = rotation == 0 ? drawn
            : CGRect(x: 1 - drawn.maxY, y: drawn.minX, width: drawn.height, height: drawn.width)
        let box = try #require(began.boxes.first)
        let tolerance = 2.0 / 90   // two analysis pixels, for the scaler's blur at the edges
        #expect(abs(box.minX - expected.minX) < tolerance && abs(box.minY - expected.minY) < tolerance
                && abs(box.maxX - expected.maxX) < tolerance && abs(box.maxY - expected.maxY) < tolerance,
                "box \(box), the object at \(expected)")
        #expect(began.boxes.count == 1 && began.score > 0.005, "\(began)")
    }

    @Test func anIgnoredRegionNeverTriggers() async throws {
        let rig = try Rig("motion-ignored") {
            try $0.setRegions([.ignored(CGRect(x: 0.55, y: 0.4, width: 0.3, height: 0.35))])
        }
        defer { CaptureDevice.removeVirtualDevice(rig.camera) }
        try await rig.session.start()
        // Two loops of the scene: the object appears and goes twice.
        #expect(await rig.frames.samples.wait(forCount: 200, timeout: .seconds(60)))
        try await rig.session.stop()
        #expect(rig.motion.statistics.analyzedFrames >= 199, "\(rig.motion.statistics)")
        #expect(rig.delegate.events.items.isEmpty, "\(rig.delegate.events.items.prefix(3))")
        #expect(rig.motion.statistics.episodes == 0)
    }

    @Test func settingsOutsideTheirRangesAreRefused() {
        let motion = CaptureMotionOutput()
        #expect(throws: CaptureError.self) { try motion.setSensitivity(1.5) }
        #expect(throws: CaptureError.self) { try motion.setMinimumChangedArea(-0.1) }
        #expect(throws: CaptureError.self) { try motion.setRegions([.ignored(CGRect(x: 0.5, y: 0.5, width: 0.6, height: 0.1))]) }
        #expect(throws: CaptureError.self) { try motion.setRegions([.watched(CGRect(x: 0, y: 0, width: 0.5, height: 0.5), sensitivity: 2)]) }
        #expect(throws: CaptureError.self) { try motion.setQuietPeriod(.invalid) }
        #expect(throws: CaptureError.self) { try motion.setAnalysisWidth(8) }
        #expect(motion.sensitivity == 0.5 && motion.regions.isEmpty && motion.analysisWidth == 160)
    }
}
