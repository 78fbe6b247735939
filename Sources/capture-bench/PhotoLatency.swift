import CaptureKit
import Dispatch
import Foundation
import Synchronization

/// The latency part of `photo-1080p`: photos requested one after another from a running
/// session, each at a random point of the frame interval (so the wait for the next frame is
/// sampled evenly), timed from the request to `didFinishProcessingPhoto`, when the JPEG bytes
/// exist.
enum PhotoLatency {
    struct Result {
        var row: Measurement
        /// Per photo: (request to JPEG, request to frame delivery, frame delivery to JPEG), ns.
        var samples: [(total: Int64, wait: Int64, process: Int64)]
        var frameIntervalMs: Double

        private static func percentile(_ values: [Int64], _ fraction: Double) -> Double {
            let sorted = values.sorted()
            guard !sorted.isEmpty else { return 0 }
            let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded(.up)))
            return Double(sorted[index]) / 1e6
        }

        var medianMs: Double { Self.percentile(samples.map(\.total), 0.5) }
        var p99Ms: Double { Self.percentile(samples.map(\.total), 0.99) }
        var maxMs: Double { Self.percentile(samples.map(\.total), 1) }
        var waitMedianMs: Double { Self.percentile(samples.map(\.wait), 0.5) }
        var waitP99Ms: Double { Self.percentile(samples.map(\.wait), 0.99) }
        var waitMaxMs: Double { Self.percentile(samples.map(\.wait), 1) }
        var processMedianMs: Double { Self.percentile(samples.map(\.process), 0.5) }
        var processP99Ms: Double { Self.percentile(samples.map(\.process), 0.99) }
    }

    /// Runs a real-time 30 fps virtual camera looping `frames` (ready, so a frame is delivered
    /// at its deadline, as a real camera's) and takes `photos` photos: of the newest frame
    /// delivered (zero shutter lag), or with `nextFrame`, each of the next frame after its request.
    static func measure(photos: Int, frames: [PixelBuffer], nextFrame: Bool = false) throws -> Result {
        try withSession(frames: frames) { camera, output in try measure(photos: photos, camera: camera, output: output, nextFrame: nextFrame) }
    }

    /// Runs `body` with a real-time 30 fps virtual camera looping `frames` and a photo output,
    /// in a running session.
    static func withSession<R>(frames: [PixelBuffer], _ body: (CaptureDevice, CapturePhotoOutput) throws -> R) throws -> R {
        var configuration = VirtualCameraConfiguration(name: "capture-bench photo camera")
        configuration.content = .frames(frames)
        configuration.frameRates = [30]
        let camera = try CaptureDevice.makeVirtualCamera(configuration)
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let session = CaptureSession()
        session.beginConfiguration()
        try session.setSessionPreset(.high)
        try session.addInput(CaptureDeviceInput(device: camera))
        let output = CapturePhotoOutput()
        try session.addOutput(output)
        try session.commitConfiguration()
        try session.startRunning()
        defer { try? session.stopRunning() }
        return try body(camera, output)
    }

    private static func measure(photos: Int, camera: CaptureDevice, output: CapturePhotoOutput, nextFrame: Bool) throws -> Result {
        let interval = camera.activeVideoMinFrameDuration
        let intervalNs = interval.nanoseconds ?? 33_333_333
        let waiter = Waiter(nextFrame: nextFrame)
        // One photo first, outside the figures: it starts the worker and warms the encoder.
        _ = try waiter.take(output)
        var generator = SystemRandomNumberGenerator()
        var samples: [(Int64, Int64, Int64)] = []
        let before = ResourceSnapshot.now()
        for _ in 0..<photos {
            MediaTime.sleep(until: MediaTime(value: MediaTime.now.value + Int64.random(in: 0..<intervalNs, using: &generator), timescale: 1_000_000_000))
            let requested = MediaTime.now.value
            let (photo, finished) = try waiter.take(output)
            guard let delivered = (photo.timestamp + interval).nanoseconds else { throw BenchError("a photo without a timestamp") }
            samples.append((finished - requested, delivered - requested, finished - delivered))
        }
        let after = ResourceSnapshot.now()
        let row = Measurement(label: "CaptureKit photo request -> JPEG" + (nextFrame ? ", waitsForNextFrame" : ", zero shutter lag"),
                              tool: "CaptureKit", frames: photos,
                              delivered: nil, dropped: nil, unaccounted: nil,
                              wallSeconds: after.wallSeconds(since: before), cpuSeconds: after.cpuSeconds(since: before),
                              peakRSSBytes: nil, peakRSSScope: "process", cpuRatio: nil)
        return Result(row: row, samples: samples.map { (total: $0.0, wait: $0.1, process: $0.2) }, frameIntervalMs: Double(intervalNs) / 1e6)
    }

    /// Takes one photo through the delegate API and notes when its JPEG was ready.
    final class Waiter: CapturePhotoCaptureDelegate {
        private let queue = DispatchQueue(label: "capture-bench.photo")
        private let done = DispatchSemaphore(value: 0)
        private let last = Mutex<(photo: CapturePhoto, at: Int64, error: CaptureError?)?>(nil)
        private let nextFrame: Bool

        init(nextFrame: Bool) { self.nextFrame = nextFrame }

        func take(_ output: CapturePhotoOutput) throws -> (CapturePhoto, Int64) {
            var settings = CapturePhotoSettings()
            settings.waitsForNextFrame = nextFrame
            output.capturePhoto(with: settings, delegate: self, queue: queue)
            guard done.wait(timeout: .now() + .seconds(10)) == .success, let result = last.withLock({ $0 }) else {
                throw BenchError("no photo within 10 s")
            }
            if let error = result.error { throw error }
            return (result.photo, result.at)
        }

        func photoOutput(_ output: CapturePhotoOutput, didFinishProcessingPhoto photo: CapturePhoto, error: (any Error)?) {
            let now = MediaTime.now.value
            last.withLock { $0 = (photo, now, error as? CaptureError) }
        }

        func photoOutput(_ output: CapturePhotoOutput, didFinishCaptureFor resolvedSettings: CaptureResolvedPhotoSettings, error: (any Error)?) {
            done.signal()
        }
    }
}
