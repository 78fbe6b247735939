import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// A PipeWire camera node that sends Motion JPEG (as webcams behind WirePlumber's V4L2
    /// monitor do at their larger sizes): GStreamer's jpegenc into pipewiresink, on the private
    /// PipeWire stack.
    @Suite(.serialized, .tags(.soundServer, .childProcess))
    struct PipeWireMJPEGCameraTests {
        static let width = 320, height = 240

        /// videotestsrc's default picture: the SMPTE bars, seven of them across the top two thirds
        /// (which channels are lit in each).
        static let bars: [(Int, Int, Int)] = [(192, 192, 192), (192, 192, 0), (0, 192, 192), (0, 192, 0), (192, 0, 192), (192, 0, 0), (0, 0, 192)]

        /// Starts the MJPEG node "mjpegcam" on `daemon` and returns its device once listed.
        static func startCamera(_ daemon: AudioDaemon) throws -> CaptureDevice {
            try AudioDaemons.launch(daemon, "gst-launch-1.0", [
                "-q", "videotestsrc", "is-live=true", "!", "video/x-raw,width=\(width),height=\(height),framerate=30/1", "!",
                "jpegenc", "quality=95", "!", "pipewiresink", "mode=provide", "client-name=mjpegcam",
                #"stream-properties="props,media.class=Video/Source,media.role=Camera,node.name=mjpegcam,node.description=\"MJPEG Camera\"""#,
            ])
            var camera: CaptureDevice?
            try AudioDaemons.poll("the MJPEG camera", check: { try daemon.checkAlive("gst-launch-1.0") }) {
                camera = CaptureDevice.allDevices.first { $0.uniqueID == "pipewire:mjpegcam" && !$0.formats.isEmpty }
                return camera != nil
            }
            return try #require(camera)
        }

        @Test func motionJPEGFramesAreDecodedAndKept() async throws {
            guard try AudioDaemons.requireTools(also: ["gst-launch-1.0"]) else { return }
            try await AudioDaemons.withPipeWire(camera: true) { daemon in
                let camera = try Self.startCamera(daemon)
                let format = try #require(camera.formats.first { $0.encoding == .mjpeg && $0.width == Self.width && $0.height == Self.height },
                                          "\(camera.formats)")
                #expect(format.pixelFormat == .rgb24)
                try camera.lockForConfiguration()
                try camera.setActiveFormat(format)
                camera.unlockForConfiguration()
                // Every JPEG is cut short in a buffer of the producer's guessed size (8 KiB from
                // pipewiresink) and dropped, unless the stream asks for room for a frame.
                let (recorder, _) = try await VMCapture.frames(camera, count: 30)

                let samples = recorder.samples.items.map(\.sample)
                let stamps = samples.map(\.presentationTimeStamp)
                #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 }, "capture times in order")
                #expect(recorder.accounting.isComplete, "\(recorder.accounting)")
                let last = try #require(samples.last)
                let frame = try #require(last.pixelBuffer)
                #expect(frame.pixelFormat == .rgb24 && frame.width == Self.width && frame.height == Self.height)
                // The camera's JPEG rides along, as a V4L2 MJPEG camera's does.
                let jpeg = try #require(last.compressedFrame)
                #expect(jpeg.codec == .jpeg && jpeg.byteCount > 100)
                #expect(jpeg.bytes.prefix(2).elementsEqual([0xFF, 0xD8]), "a JPEG starts with SOI")
                // The decoded picture is the kept JPEG as FFmpeg decodes it, and shows
                // videotestsrc's bars (jpegenc stores its limited-range samples as they are, so
                // its white is 235, not 255).
                let scratch = try PhotoScratch()
                let file = try scratch.write(Data(jpeg.bytes), as: "frame.jpg")
                let reference = try NetpbmImage(PhotoTools.run("ffmpeg", ["-v", "error", "-i", file, "-f", "image2pipe", "-vcodec", "ppm", "-"], in: scratch))
                let barWidth = Self.width / Self.bars.count
                for (index, bar) in Self.bars.enumerated() {
                    let x = index * barWidth + barWidth / 2, y = Self.height / 3
                    let rgb = frame.withUnsafeBytes(ofPlane: 0) { bytes in
                        (0..<3).map { Int(bytes[y * frame.bytesPerRow(ofPlane: 0) + x * 3 + $0]) }
                    }
                    #expect(zip(rgb, reference.pixel(x: x, y: y)).allSatisfy { abs($0 - $1) <= 2 }, "bar \(index) at (\(x),\(y)): \(rgb), FFmpeg \(reference.pixel(x: x, y: y))")
                    #expect(zip(rgb, [bar.0, bar.1, bar.2]).allSatisfy { $1 == 0 ? $0 < 64 : $0 > 160 }, "bar \(index) at (\(x),\(y)): \(rgb)")
                }
            }
        }
    }
}
