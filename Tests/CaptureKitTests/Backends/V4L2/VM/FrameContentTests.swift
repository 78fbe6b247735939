import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.V4L2IntegrationTests {
    /// Frames from vivid in three formats, their content checked against vivid's known pattern
    /// (75 % colour bars, static, no OSD text) and against the same frame as v4l2-ctl receives it.
    @Suite struct FrameContentTests {
        @Test(arguments: [
            ("YUYV", 640, 480, PixelFormat.yuyv422),
            ("NV12", 640, 480, .nv12),
            ("RGB3", 320, 180, .rgb24),
        ])
        func framesShowVividsColourBars(_ fourCC: String, _ width: Int, _ height: Int, _ pixelFormat: PixelFormat) async throws {
            let node = VMEnvironment.vivid(0)
            // Start-of-exposure timestamps: vivid's default (end of frame) stamps a frame one
            // period ahead of the time it is filled, which a real camera never does.
            try V4L2Ctl.set(node, ["test_pattern": "0", "osd_text_mode": "2", "horizontal_movement": "3", "vertical_movement": "3",
                                   "timestamp_source": "1"])
            // The reference first: v4l2-ctl and this process cannot stream the node at once.
            let reference = PixelSampler(raw: try V4L2Ctl.captureFrame(node, fourCC: fourCC, width: width, height: height),
                                         pixelFormat: pixelFormat, width: width, height: height)

            let device = try VMEnvironment.device(at: node)
            try VMCapture.configure(device, try VMCapture.format(device, fourCC: fourCC, width: width, height: height), fps: 25)
            #expect(device.activeFormat.fourCC == fourCC)
            let streamStart = MonotonicClock.nanoseconds()
            let (recorder, _) = try await VMCapture.frames(device, count: 4)

            // The last frame: the first ones may predate the format change.
            let sample = try #require(recorder.samples.items.last?.sample)
            let buffer = try #require(sample.pixelBuffer)
            #expect(buffer.pixelFormat == pixelFormat, "delivered as the device sends it, without conversion")
            #expect(buffer.width == width && buffer.height == height)
            let mismatches = ColorBarPattern.mismatches(in: PixelSampler(buffer), reference: reference, referenceName: "v4l2-ctl")
            #expect(mismatches.isEmpty, "\(mismatches.count) sampled pixels wrong: \(mismatches.prefix(8))")
            try VMCapture.expectKernelTimes(recorder, since: streamStart)
        }
    }
}
