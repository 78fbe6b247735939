import CaptureKit
import Dispatch

/// CaptureKit's side of `network-frame-age`, in this process through the public API, as an
/// application reading a camera's frames would: a ``CaptureDevice/networkCamera(url:options:)``
/// over RTSP/TCP, a ``CaptureSession`` (preset `.inputPriority`: the camera's own format) with
/// its ``CaptureDeviceInput`` and a ``CaptureVideoDataOutput`` at its defaults (the decoded
/// format, late frames discarded), whose delegate (``StampAgeRecorder``) reads each frame's
/// stamp.
struct NetworkFrameAgeCaptureKitCase {
    let url: String
    let warmUp: Int
    let frames: Int

    /// One run: the window's ages, and the frames the output dropped over the whole session
    /// (late frames it discarded: the delegate never saw them, so they have no age).
    func run() throws -> (ages: StampedAges, dropped: Int) {
        var options = NetworkCameraOptions()
        options.rtspTransport = .tcp
        options.name = "stamped bench camera"
        let camera = try CaptureDevice.networkCamera(url: url, options: options)

        let session = CaptureSession()
        let output = CaptureVideoDataOutput()
        // Held here: an output holds its delegate weakly.
        let recorder = StampAgeRecorder(warmUp: warmUp, frames: frames)
        output.setSampleBufferDelegate(recorder, queue: DispatchQueue(label: "capture-bench.frame-age"))
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: camera))
        try session.setSessionPreset(.inputPriority)
        try session.addOutput(output)
        try session.commitConfiguration()

        try session.startRunning()
        // The frames at the camera's rate, three times over, and the connection's start.
        let timeout = Double(warmUp + frames) / Double(StampedRTSPCamera.fps) * 3 + 20
        let finished = recorder.wait(seconds: timeout)
        let dropped = output.statistics.dropped
        try session.stopRunning()
        output.setSampleBufferDelegate(nil, queue: nil)
        withExtendedLifetime(recorder) {}
        guard finished else {
            throw BenchError("CaptureKit: \(warmUp + frames) frames from \(url) did not arrive within \(Int(timeout)) s")
        }
        return (recorder.result, dropped)
    }
}
