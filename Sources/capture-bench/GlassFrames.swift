import CaptureKit
import Glibc

/// The pictures both publishers of `glass-to-glass` send: CaptureKit's ``TestPattern`` (moving
/// bars and a bouncing box, so the encoder has real work) at 640x480 yuv420p, with a
/// ``FrameStamp`` over its top-left corner. Both publishers show pattern frame *k* mod
/// ``loopLength`` as their *k*th frame, so the two encodes see the same pictures.
///
/// What is stamped differs, because the virtual camera cannot draw as it captures — it loops
/// pictures made beforehand (`VirtualCameraConfiguration.Content.frames`): CaptureKit's frames
/// carry their position in the loop, which ``GlassLoopClock`` turns into the moment the camera
/// delivered the frame; ffmpeg's carry the CLOCK_MONOTONIC nanoseconds at which the benchmark
/// wrote them to its stdin.
enum GlassFrames {
    static let width = 640
    static let height = 480
    static let fps = 30
    /// Pictures in the loop: 5 s at 30 fps, longer than any latency measured here, so a loop
    /// position read back names one frame; 66 MiB of yuv420p.
    static let loopLength = 150

    /// The bytes of one yuv420p frame.
    static let frameBytes = width * height * 3 / 2

    /// The virtual camera's loop: pattern frame *k* with *k* stamped, for every *k* of the loop.
    static func loop() throws -> [PixelBuffer] {
        let pattern = try TestPattern(width: width, height: height, pixelFormat: .yuv420p)
        return try (0..<loopLength).map { index in try stamped(pattern.render(frameIndex: index), value: Int64(index)) }
    }

    /// Writes ffmpeg's frame `index` into `bytes` (``frameBytes`` long, luma first): the
    /// pattern's frame of the same loop position, packed as `-f rawvideo -pix_fmt yuv420p` reads
    /// it, not yet stamped (the stamp is painted the moment it is written).
    static func raw(_ pattern: TestPattern, index: Int, into bytes: inout [UInt8]) throws {
        let frame = try pattern.render(frameIndex: index % loopLength)
        var offset = 0
        for plane in 0..<frame.planeCount {
            let rowBytes = plane == 0 ? width : width / 2
            let sourceRow = frame.bytesPerRow(ofPlane: plane)
            frame.withUnsafeBytes(ofPlane: plane) { source in
                bytes.withUnsafeMutableBytes { target in
                    for row in 0..<frame.rowCount(ofPlane: plane) {
                        memcpy(target.baseAddress! + offset + row * rowBytes, source.baseAddress! + row * sourceRow, rowBytes)
                    }
                }
            }
            offset += rowBytes * frame.rowCount(ofPlane: plane)
        }
    }

    /// A copy of `frame` with `value` stamped into its luma.
    private static func stamped(_ frame: PixelBuffer, value: Int64) throws -> PixelBuffer {
        try PixelBuffer(width: frame.width, height: frame.height, pixelFormat: frame.pixelFormat) { plane, bytes, bytesPerRow in
            let sourceRow = frame.bytesPerRow(ofPlane: plane)
            frame.withUnsafeBytes(ofPlane: plane) { source in
                for row in 0..<frame.rowCount(ofPlane: plane) {
                    memcpy(bytes.baseAddress! + row * bytesPerRow, source.baseAddress! + row * sourceRow, min(sourceRow, bytesPerRow))
                }
            }
            if plane == 0 { FrameStamp.paint(value, into: bytes, bytesPerRow: bytesPerRow) }
        }
    }
}
