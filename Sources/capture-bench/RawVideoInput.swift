import CaptureKit
import Glibc

/// The input of a video benchmark: distinct test-pattern frames packed one after another in a
/// raw file, as `ffmpeg -f rawvideo` reads them, and loadable into memory for a virtual camera.
///
/// Writing and loading are separate steps so a peer tool can be started while this process is
/// still small: `posix_spawn` shares this process's memory until `exec`, and the kernel counts
/// its high-water mark at `exec` as the child's peak RSS.
struct RawVideoInput: Sendable {
    let path: String
    let frameCount: Int
    let width: Int
    let height: Int
    let pixelFormat: PixelFormat

    /// Bytes of one packed frame.
    var frameByteCount: Int { pixelFormat.packedFrameSize(width: width, height: height) }

    /// Renders `count` frames of the CaptureKit test pattern into `path`, one at a time (the
    /// pattern's pool reuses one buffer, so memory stays at a frame or two).
    static func write(count: Int, width: Int, height: Int, pixelFormat: PixelFormat, path: String) throws -> RawVideoInput {
        let pattern = try TestPattern(width: width, height: height, pixelFormat: pixelFormat)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw BenchError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        for index in 0..<count {
            let bytes = try pattern.render(frameIndex: index).packedBytes()
            try bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw BenchError("cannot write \(path): \(String(cString: strerror(errno)))")
                    }
                    offset += written
                }
            }
        }
        return RawVideoInput(path: path, frameCount: count, width: width, height: height, pixelFormat: pixelFormat)
    }

    /// Reads every frame back into its own pixel buffer (rows padded as CaptureKit lays them out).
    func loadFrames() throws -> [PixelBuffer] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw BenchError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var packed = [UInt8](repeating: 0, count: frameByteCount)
        var frames: [PixelBuffer] = []
        frames.reserveCapacity(frameCount)
        for index in 0..<frameCount {
            try packed.withUnsafeMutableBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let got = read(fd, raw.baseAddress! + offset, raw.count - offset)
                    if got < 0, errno == EINTR { continue }
                    guard got > 0 else {
                        throw BenchError("\(path) ends inside frame \(index) of \(frameCount)")
                    }
                    offset += got
                }
            }
            let frame = try PixelBuffer(width: width, height: height, pixelFormat: pixelFormat)
            packed.withUnsafeBytes { source in
                var offset = 0
                for plane in 0..<frame.planeCount {
                    let rowBytes = pixelFormat.minimumBytesPerRow(plane: plane, width: width)
                    let stride = frame.bytesPerRow(ofPlane: plane)
                    frame.withUnsafeMutableBytes(ofPlane: plane) { target in
                        for row in 0..<frame.rowCount(ofPlane: plane) {
                            (target.baseAddress! + row * stride).copyMemory(from: source.baseAddress! + offset, byteCount: rowBytes)
                            offset += rowBytes
                        }
                    }
                }
            }
            frames.append(frame)
        }
        return frames
    }

    func remove() { unlink(path) }
}
