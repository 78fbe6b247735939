import Glibc

/// The inputs of `record-1080p`, made with ffmpeg as the anchor's README makes them: testsrc2 at
/// 1920x1080, 30 fps, as 4:2:0 then packed to YUYV (what webcams deliver) in a raw file, and a
/// 440 Hz 48 kHz stereo s16 tone as WAV, both exactly `frames` frames long.
///
/// CaptureKit's file devices open what FFmpeg can probe, and a raw file has no header, so the
/// same YUYV bytes are also wrapped, not re-encoded, in NUT (`-c:v rawvideo`). The peers read
/// the raw file as in the anchor's commands.
struct RecordInputs: Sendable {
    let width = 1920
    let height = 1080
    let frameRate = 30
    let frames: Int
    let rawVideoPath: String
    let nutPath: String
    let wavPath: String

    /// Audio samples per video frame at 48 kHz and 30 fps: the tone lasts exactly as long as the video.
    private static let samplesPerFrame = 1600

    /// Writes the three files into `directory` with the ffmpeg at `ffmpeg`.
    static func make(frames: Int, directory: String, ffmpeg: String) throws -> RecordInputs {
        let inputs = RecordInputs(frames: frames, rawVideoPath: "\(directory)/record_1080p.yuyv",
                                  nutPath: "\(directory)/record_1080p.nut", wavPath: "\(directory)/record_tone_48k_s16le.wav")
        let quiet = ["-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
        do {
            // format=yuv420p first, as the README goes through a yuv420p .y4m: the same pixels
            // without writing the intermediate file.
            _ = try ChildProcess.run(ffmpeg, quiet + [
                "-f", "lavfi", "-i", "testsrc2=size=\(inputs.width)x\(inputs.height):rate=\(inputs.frameRate)",
                "-frames:v", String(frames), "-vf", "format=yuv420p,format=yuyv422", "-f", "rawvideo", inputs.rawVideoPath,
            ], scratchDirectory: directory)
            _ = try ChildProcess.run(ffmpeg, quiet + [
                "-f", "rawvideo", "-pix_fmt", "yuyv422", "-video_size", "\(inputs.width)x\(inputs.height)",
                "-framerate", String(inputs.frameRate), "-i", inputs.rawVideoPath, "-c:v", "rawvideo", "-f", "nut", inputs.nutPath,
            ], scratchDirectory: directory)
            // The sine source runs a little longer than needed and atrim cuts it at the exact sample.
            let seconds = frames / inputs.frameRate + 1
            _ = try ChildProcess.run(ffmpeg, quiet + [
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)",
                "-af", "atrim=end_sample=\(frames * samplesPerFrame)", "-ac", "2", "-c:a", "pcm_s16le", inputs.wavPath,
            ], scratchDirectory: directory)
        } catch {
            inputs.remove()
            throw BenchError("cannot make the record-1080p inputs: \(error)")
        }
        return inputs
    }

    func remove() {
        for path in [rawVideoPath, nutPath, wavPath] { unlink(path) }
    }
}
