import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitPreview

extension RealTimeCaptureTests {
    /// The SDL preview window on an Xvfb display of the test's own: what reaches the screen
    /// (screenshot by xwd, decoded by FFmpeg) is the camera frame fitted, mirrored and turned as
    /// asked; points convert both ways; the window resizes, goes fullscreen and closes.
    @Suite(.serialized, .tags(.childProcess))
    struct PreviewWindowTests {
        static let tools = ["Xvfb", "xwd", "xdotool", "ffmpeg", "ffprobe"]

        /// A window of its own on a display of its own, showing one still camera frame.
        final class Fixture: @unchecked Sendable {
            let display: VirtualDisplay
            let frame: PixelBuffer
            let camera: CaptureDevice
            let session: CaptureSession
            let preview: CaptureVideoPreview
            let title = "CaptureKit test \(UUID().uuidString.prefix(8))"
            let presented = Recorder<CaptureVideoPreview.PresentedFrame>()
            private var watcher: Task<Void, Never>?

            init(windowWidth: Int = 320, windowHeight: Int = 120) async throws {
                display = try VirtualDisplay()
                setenv("DISPLAY", display.name, 1)
                frame = try TestPattern(width: 160, height: 120, pixelFormat: .nv12).render(frameIndex: 7)
                let still = frame
                camera = try makeTestCamera("preview") { $0.content = .frames([still]) }
                session = try makeSession(camera: camera, outputs: [])
                var options = CaptureVideoPreview.WindowOptions()
                options.title = title
                options.width = windowWidth
                options.height = windowHeight
                preview = try CaptureVideoPreview(session: session, options: options)
                let stream = preview.presentedFrames
                let presented = presented
                watcher = Task { for await frame in stream { presented.append(frame) } }
                try await session.start()
            }

            /// Waits for a drawing that satisfies `condition` after `count` earlier ones.
            func waitForPresentation(after count: Int, _ condition: @escaping @Sendable (CaptureVideoPreview.PresentedFrame) -> Bool) async -> Bool {
                await presented.wait(timeout: .seconds(30)) { $0.dropFirst(count).contains(where: condition) }
            }

            func tearDown() async throws {
                preview.close()
                await preview.waitUntilClosed()
                watcher?.cancel()
                try await session.stop()
                CaptureDevice.removeVirtualDevice(camera)
                unsetenv("DISPLAY")
            }
        }

        @Test(.enabled(if: PreviewPrerequisites.runnable(tools)))
        func theScreenShowsTheFrameForEveryGravityMirroringAndRotation() async throws {
            let fixture = try await Fixture()
            let scratch = try PhotoScratch()
            let cases: [(VideoGravity, Bool, Int)] = [(.resizeAspect, false, 0), (.resizeAspectFill, false, 0), (.resize, false, 0),
                                                      (.resizeAspect, true, 0), (.resizeAspectFill, true, 0), (.resizeAspect, false, 90)]
            for (gravity, mirrored, rotation) in cases {
                let connection = try #require(fixture.preview.connection)
                connection.isVideoMirrored = mirrored
                try connection.setVideoRotationAngle(Double(rotation))
                let before = fixture.presented.count
                fixture.preview.videoGravity = gravity
                #expect(await fixture.waitForPresentation(after: before) {
                    $0.gravity == gravity && $0.isMirrored == mirrored && $0.rotation == rotation
                }, "no drawing with \(gravity), mirrored \(mirrored), rotation \(rotation)")
                let shot = try fixture.display.screenshot(windowTitled: fixture.title, in: scratch)
                #expect(shot.width == 320 && shot.height == 120)
                let geometry = PreviewGeometry(frameWidth: 160, frameHeight: 120, rotation: rotation, isMirrored: mirrored,
                                               gravity: gravity, viewWidth: 320, viewHeight: 120)
                let quality = psnr(shot.rgb, try expectedWindow(fixture.frame, geometry: geometry))
                #expect(quality >= 30, "\(gravity), mirrored \(mirrored), rotation \(rotation): PSNR \(quality) dB")
                if mirrored || rotation != 0 {
                    // The comparison can tell: the unturned, unmirrored picture must not match.
                    var plain = geometry
                    plain.isMirrored = false
                    plain.rotation = 0
                    let wrong = psnr(shot.rgb, try expectedWindow(fixture.frame, geometry: plain))
                    #expect(wrong < 22, "\(gravity) mirrored \(mirrored) rotation \(rotation) also matches the plain picture: \(wrong) dB")
                }
            }
            #expect(fixture.preview.statistics.presented >= cases.count)
            try await fixture.tearDown()
        }

        @Test(.enabled(if: PreviewPrerequisites.runnable(tools)))
        func pointsConvertBothWaysAndFollowResizesAndFullscreen() async throws {
            let fixture = try await Fixture()
            let preview = fixture.preview
            #expect(await fixture.waitForPresentation(after: 0) { $0.viewWidth == 320 })
            // 160x120 in 320x120, aspect: the picture sits at x 80...240.
            let corner = preview.layerPointConverted(fromCaptureDevicePoint: PreviewPoint(x: 0, y: 0))
            #expect(abs(corner.x - 80) < 0.001 && abs(corner.y) < 0.001, "\(corner)")
            preview.connection?.isVideoMirrored = true
            let mirroredCorner = preview.layerPointConverted(fromCaptureDevicePoint: PreviewPoint(x: 0, y: 0))
            #expect(abs(mirroredCorner.x - 240) < 0.001, "\(mirroredCorner)")
            for gravity in VideoGravity.allCases {
                preview.videoGravity = gravity
                for rotation in [0.0, 90, 180, 270] {
                    try preview.connection?.setVideoRotationAngle(rotation)
                    for point in [PreviewPoint(x: 0.25, y: 0.75), PreviewPoint(x: 0.9, y: 0.1)] {
                        let layer = preview.layerPointConverted(fromCaptureDevicePoint: point)
                        let back = preview.captureDevicePointConverted(fromLayerPoint: layer)
                        #expect(abs(back.x - point.x) < 1e-9 && abs(back.y - point.y) < 1e-9, "\(gravity) \(rotation): \(point) → \(layer) → \(back)")
                    }
                }
            }
            try preview.connection?.setVideoRotationAngle(0)
            preview.videoGravity = .resize
            // A resize from outside, as a window manager would do it.
            let scratch = try PhotoScratch()
            try PhotoTools.run("xdotool", ["search", "--name", fixture.title, "windowsize", "200", "100"],
                               in: scratch)
            var count = fixture.presented.count
            #expect(await fixture.waitForPresentation(after: count) { $0.viewWidth == 200 && $0.viewHeight == 100 })
            let center = preview.layerPointConverted(fromCaptureDevicePoint: PreviewPoint(x: 0.5, y: 0.5))
            #expect(abs(center.x - 100) < 0.001 && abs(center.y - 50) < 0.001, "\(center)")

            count = fixture.presented.count
            preview.setFullscreen(true)
            #expect(await fixture.waitForPresentation(after: count) { $0.viewWidth == 640 && $0.viewHeight == 480 })
            #expect(preview.isFullscreen)
            count = fixture.presented.count
            preview.setFullscreen(false)
            // Without a window manager the old size is not given back, so only the mode is checked:
            // a drawing made after the request was carried out.
            #expect(await fixture.waitForPresentation(after: count) { _ in !preview.isFullscreen })
            #expect(!preview.isFullscreen)

            // Closing leaves the session running, without the preview.
            preview.close()
            await preview.waitUntilClosed()
            #expect(!preview.isOpen)
            #expect(fixture.session.isRunning)
            #expect(!fixture.session.outputs.contains(preview))
            try await fixture.tearDown()
        }

        @Test(.enabled(if: PreviewPrerequisites.runnable(tools)))
        func aFrozenDisplayNeverSlowsCapture() async throws {
            let fixture = try await Fixture()
            let frames = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: frames)
            try fixture.session.addOutput(frames)
            #expect(await fixture.waitForPresentation(after: 0) { _ in true })
            #expect(await recorder.samples.wait(forCount: 5))
            // This run's pace with the window drawing, then with the X server stopped: the
            // render thread blocks inside SDL, capture must not (a blocked capture would deliver
            // nothing in the window).
            let drawing = try #require(await CaptureWindow.measure(recorder, frames: 45), "\(recorder.accounting)")
            fixture.display.freeze()
            let presentedBefore = fixture.preview.statistics.presented
            let droppedBefore = fixture.preview.statistics.dropped
            let measured = await CaptureWindow.measure(recorder, frames: 45)
            let presentedWhileFrozen = fixture.preview.statistics.presented - presentedBefore
            let droppedWhileFrozen = fixture.preview.statistics.dropped - droppedBefore
            fixture.display.thaw()
            let frozen = try #require(measured, "capture stopped while the display was frozen: \(recorder.accounting)")
            #expect(frozen.deliveredFraction >= drawing.deliveredFraction / 3, "drawing: \(drawing); frozen: \(frozen)")
            #expect(presentedWhileFrozen <= 2, "the window kept drawing on a frozen display: \(presentedWhileFrozen)")
            // Every frame the window could not draw is counted: one device loop hands the preview
            // the frames it hands the data output; one waits in the preview's slot, and the
            // window's edges (statistics read a moment before and after the data output's
            // delivery) can miss one frame each.
            #expect(droppedWhileFrozen >= frozen.delivered - presentedWhileFrozen - 3,
                    "the preview should have counted the frames it could not show: \(droppedWhileFrozen) of \(frozen)")
            #expect(recorder.accounting.isComplete, "\(recorder.accounting)")
            let times = FrameTimestamps(recorder.samples.items, frameDuration: fixture.camera.activeVideoMinFrameDuration)
            #expect(times.isExact, "\(times)")
            // Once the display runs again the newest frame is shown.
            let count = fixture.presented.count
            #expect(await fixture.waitForPresentation(after: count) { _ in true })
            try await fixture.tearDown()
        }
    }
}

/// Fitting and point conversion as arithmetic, without a window (no display, no real time).
@Suite(.excludable)
struct PreviewGeometryTests {
    @Test func geometryFitsAndConvertsWithoutAWindow() {
        let aspect = PreviewGeometry(frameWidth: 640, frameHeight: 480, rotation: 0, isMirrored: false, gravity: .resizeAspect,
                                     viewWidth: 800, viewHeight: 300)
        #expect(aspect.pictureRect == (200, 0, 400, 300))
        var fill = aspect
        fill.gravity = .resizeAspectFill
        #expect(fill.pictureRect == (0, -150, 800, 600))
        var turned = aspect
        turned.rotation = 90
        #expect(turned.pictureRect == (287.5, 0, 225, 300))
        // Turned clockwise, the sensor's top-left corner is the picture's top-right.
        let corner = turned.layerPoint(fromDevicePoint: PreviewPoint(x: 0, y: 0))
        #expect(corner == PreviewPoint(x: 512.5, y: 0))
    }
}
