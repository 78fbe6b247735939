import CaptureKit
import Synchronization

/// The pictures every `multicam` camera shows, CaptureKit's and ffmpeg's alike: ffmpeg's
/// testsrc2 at 640x480 as NV12 (what the virtual cameras deliver), ``loopFrames`` frames in a
/// raw file that each ffmpeg child loops from the file (`-stream_loop -1`) and the virtual
/// cameras loop from memory.
///
/// Both sides so hand x264 the same pixels: its work depends on what it compresses (CaptureKit's
/// own ``TestPattern`` compresses to a fifth of testsrc2's bit rate or less), so different pictures
/// would compare the pictures, not the tools.
///
/// The frames are read into memory once, when a CaptureKit row first needs them, and shared by
/// every camera of every row after: the ffmpeg rows that run before are spawned from a process
/// that does not hold them (a child's `ru_maxrss` starts at this process's size at spawn).
final class MultiCamInput: Sendable {
    /// Two seconds at 30 fps: two keyframe intervals, so the loop's seam falls on a keyframe.
    static let loopFrames = 60

    /// The raw file.
    let raw: RawVideoInput
    private let loaded = Mutex<[PixelBuffer]?>(nil)

    /// Writes `multicam_testsrc2.nv12` into `directory` with the ffmpeg at `ffmpeg`.
    init(directory: String, ffmpeg: String) throws {
        raw = RawVideoInput(path: "\(directory)/multicam_testsrc2.nv12", frameCount: Self.loopFrames,
                            width: MultiCamBenchmark.width, height: MultiCamBenchmark.height, pixelFormat: .nv12)
        do {
            _ = try ChildProcess.run(ffmpeg, [
                "-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                "-f", "lavfi", "-i", "testsrc2=size=\(raw.width)x\(raw.height):rate=\(MultiCamBenchmark.frameRate)",
                "-frames:v", String(Self.loopFrames), "-pix_fmt", "nv12", "-f", "rawvideo", raw.path,
            ], scratchDirectory: directory)
        } catch {
            raw.remove()
            throw BenchError("cannot make the multicam input: \(error)")
        }
    }

    /// The frames in memory, read from the file on the first call.
    func frames() throws -> [PixelBuffer] {
        try loaded.withLock { loaded in
            if let loaded { return loaded }
            let frames = try raw.loadFrames()
            loaded = frames
            return frames
        }
    }

    /// Removes the file (the frames in memory go with the last reference).
    func remove() { raw.remove() }
}
