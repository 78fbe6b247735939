import CaptureKit
import Synchronization

/// The virtual cameras of `multicam` on the host, and the pictures every camera shows,
/// CaptureKit's and ffmpeg's alike: ffmpeg's testsrc2 at 640x480 as NV12 (what the virtual
/// cameras deliver), ``loopFrames`` frames in a raw file that each ffmpeg child loops from the
/// file (`-stream_loop -1`, read in real time by `-re`) and the virtual cameras loop from memory.
///
/// Both sides so hand x264 the same pixels: its work depends on what it compresses (CaptureKit's
/// own ``TestPattern`` compresses to a fifth of testsrc2's bit rate or less), so different pictures
/// would compare the pictures, not the tools.
///
/// The frames are read into memory once, when a CaptureKit row first needs them, and shared by
/// every camera of every row after: the ffmpeg rows that run before are spawned from a process
/// that does not hold them (a child's `ru_maxrss` starts at this process's size at spawn).
final class MultiCamInput: MultiCamCameraSource {
    /// Two seconds at 30 fps: two keyframe intervals, so the loop's seam falls on a keyframe.
    static let loopFrames = 60

    let kind = "virtual"
    let width = 640
    let height = 480
    let frameRate = 30
    let cameraLimit: Int? = nil
    let peerInput = "ffmpeg -re"
    let peerPacing = "-re: real time; a child that falls behind runs longer instead of dropping"

    /// The raw file.
    let raw: RawVideoInput
    private let loaded = Mutex<[PixelBuffer]?>(nil)

    /// Writes `multicam_testsrc2.nv12` into `directory` with the ffmpeg at `ffmpeg`.
    init(directory: String, ffmpeg: String) throws {
        raw = RawVideoInput(path: "\(directory)/multicam_testsrc2.nv12", frameCount: Self.loopFrames,
                            width: width, height: height, pixelFormat: .nv12)
        do {
            _ = try ChildProcess.run(ffmpeg, [
                "-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                "-f", "lavfi", "-i", "testsrc2=size=\(raw.width)x\(raw.height):rate=\(frameRate)",
                "-frames:v", String(Self.loopFrames), "-pix_fmt", "nv12", "-f", "rawvideo", raw.path,
            ], scratchDirectory: directory)
        } catch {
            raw.remove()
            throw BenchError("cannot make the multicam input: \(error)")
        }
    }

    var notes: [String] {
        [
            "pictures: \(raw.frameCount) frames of ffmpeg's testsrc2 at \(width)x\(height) as NV12, looped by every camera on both "
                + "sides (the seam on a keyframe), so x264 compresses the same pixels; neither side draws anything while measured",
            "CaptureKit's cameras: N virtual cameras (\(width)x\(height) NV12, \(frameRate) fps, pacing .realTime, content .frames: "
                + "the loop above, one copy in memory for all, read before the first CaptureKit row; peak RSS includes its 26 MiB)",
        ]
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

    func prepare() throws { _ = try frames() }

    func makeCameras(_ count: Int, row: String) throws -> [CaptureDevice] {
        let frames = try frames()
        var devices: [CaptureDevice] = []
        do {
            for index in 0..<count {
                var configuration = VirtualCameraConfiguration(name: "capture-bench multicam \(count)-\(index)")
                configuration.content = .frames(frames)   // 640x480 NV12: the camera's one format
                configuration.frameRates = [Int32(frameRate)]
                configuration.pacing = .realTime
                devices.append(try CaptureDevice.makeVirtualCamera(configuration))
            }
        } catch {
            release(devices)
            throw error
        }
        return devices
    }

    func release(_ cameras: [CaptureDevice]) { cameras.forEach { CaptureDevice.removeVirtualDevice($0) } }

    func ffmpegInput(camera index: Int, seconds: Double, shown: Bool) -> [String] {
        ["-re", "-stream_loop", "-1", "-f", "rawvideo", "-pix_fmt", raw.pixelFormat.rawValue,
         "-video_size", "\(width)x\(height)", "-framerate", String(frameRate),
         "-t", String(format: "%.3f", seconds), "-i", shown ? "LOOP.nv12" : raw.path]
    }

    /// Removes the file (the frames in memory go with the last reference).
    func remove() { raw.remove() }
}
