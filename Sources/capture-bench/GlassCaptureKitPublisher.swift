import CaptureKit
import Dispatch
import Foundation

/// CaptureKit's side of `glass-to-glass`, in this process through the public API, as an
/// application streaming a camera would: a real-time 30 fps virtual camera (the stamped loop of
/// ``GlassFrames``: a frame is delivered at its deadline, as a real camera's is once exposed), a
/// ``CaptureSession`` and a ``CaptureStreamOutput`` at its defaults (libx264 veryfast,
/// zerolatency, 2.5 Mbit/s CBR, a keyframe every 2 s) publishing to the route's URL. Beside it a
/// ``CaptureVideoDataOutput`` whose delegate (``GlassLoopClock``) learns when each frame was
/// delivered; it only notes the timestamps, as an application's preview would be given the frames.
final class GlassCaptureKitPublisher: GlassPublisher {
    let label: String
    let tool = "CaptureKit"
    private let camera: CaptureDevice
    private let session = CaptureSession()
    private let stream = CaptureStreamOutput()
    private let timestamps = CaptureVideoDataOutput()
    /// Held here: outputs hold their delegates weakly.
    private let clock = GlassLoopClock()
    private let completion = StreamCompletion(deviceIDs: [], destinations: 1, records: false)

    /// Starts the camera, the session and the stream to `route`.
    init(route: GlassRoute, loop: [PixelBuffer]) throws {
        label = "CaptureKit CaptureStreamOutput, \(route.transport.rawValue)"
        var configuration = VirtualCameraConfiguration(name: "capture-bench glass camera")
        configuration.content = .frames(loop)
        configuration.frameRates = [Int32(GlassFrames.fps)]
        camera = try CaptureDevice.makeVirtualCamera(configuration)
        do {
            try stream.setDestinations([StreamDestination(route.publishURL)])
            timestamps.setSampleBufferDelegate(clock, queue: DispatchQueue(label: "capture-bench.glass.clock"))
            let events = DispatchQueue(label: "capture-bench.glass.events")
            // Before the start, so no event passes unheard.
            stream.setDelegate(completion, queue: events)
            session.beginConfiguration()
            try session.addInput(CaptureDeviceInput(device: camera))
            try session.setSessionPreset(.inputPriority)
            try session.addOutput(stream)
            try session.addOutput(timestamps)
            try session.commitConfiguration()
            try session.startRunning()
        } catch {
            detach()
            throw error
        }
    }

    func captureTime(ofStamp stamp: Int64, receivedAt arrival: Int64) -> Int64? {
        clock.captureTime(ofPosition: stamp, before: arrival)
    }

    func cpuSeconds() -> Double { ResourceSnapshot.now().cpuSeconds }

    /// How late the data output's delegate was called after the frames' deadlines.
    var delegateLateness: V4L2FrameAges { clock.delegateLateness }

    /// What the stream output says about its destination (frames sent and dropped, latency to
    /// the network).
    var statistics: [StreamStatistics] { stream.statistics }

    func stop() throws -> [String] {
        defer { detach() }
        try session.stopRunning()
        guard let outcome = completion.waitForOutput(seconds: 20) else {
            throw BenchError("\(label): the stream output did not end within 20 s of the session stopping")
        }
        if let error = outcome.destinationErrors.first { throw BenchError("\(label): the destination gave up: \(error)") }
        return outcome.incidents
    }

    private func detach() {
        stream.setDelegate(nil, queue: nil)
        timestamps.setSampleBufferDelegate(nil, queue: nil)
        CaptureDevice.removeVirtualDevice(camera)
    }
}
