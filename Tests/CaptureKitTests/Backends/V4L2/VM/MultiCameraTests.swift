import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.V4L2IntegrationTests {
    /// The four vivid cameras in one multi-camera session, each showing a colour of its own, and
    /// two of them paired by the synchronizer.
    @Suite(.serialized) struct MultiCameraTests {
        /// vivid's `test_pattern` menu entries of solid colours, and the colour each shows.
        static let colours: [(pattern: String, rgb: (Int, Int, Int))] = [("7", (255, 0, 0)), ("8", (0, 255, 0)), ("9", (0, 0, 255)), ("6", (255, 255, 255))]

        /// A committed multi-camera session with one video data output on each of `devices`.
        static func session(_ devices: [CaptureDevice]) throws -> (CaptureMultiCamSession, [CaptureVideoDataOutput]) {
            let session = CaptureMultiCamSession()
            let outputs = devices.map { _ in CaptureVideoDataOutput() }
            try session.configure {
                for (device, output) in zip(devices, outputs) {
                    let input = try CaptureDeviceInput(device: device)
                    try session.addInputWithNoConnections(input)
                    try session.addOutputWithNoConnections(output)
                    try session.addConnection(CaptureConnection(inputPorts: [try #require(input.port(for: .video))], output: output))
                }
            }
            return (session, outputs)
        }

        @Test func fourVividCamerasInOneSessionEachOutputOnItsCamera() async throws {
            let nodes = VMEnvironment.vividNodes
            try #require(nodes.count == 4, "the harness loads vivid with n_devs=4: \(nodes)")
            defer { for node in nodes { try? V4L2Ctl.set(node, ["test_pattern": "0", "osd_text_mode": "0"]) } }
            let devices = try nodes.map { try VMEnvironment.device(at: $0) }
            for (index, (node, device)) in zip(nodes, devices).enumerated() {
                try V4L2Ctl.set(node, ["test_pattern": Self.colours[index].pattern, "osd_text_mode": "2", "timestamp_source": "1"])
                try VMCapture.configure(device, try VMCapture.format(device, fourCC: "YUYV", width: 320, height: 180), fps: 25)
            }
            let (session, outputs) = try Self.session(devices)
            let recorders = devices.indices.map { SampleRecorder(label: "tests.vm.multicam.\($0)") }
            for (output, recorder) in zip(outputs, recorders) { recorder.attach(to: output) }
            #expect(session.hardwareCost == 0, "vivid is on no USB bus")
            try await session.start()
            defer { try? session.stopRunning() }
            for recorder in recorders { #expect(await recorder.samples.wait(forCount: 10, timeout: .seconds(60)), "frames: \(recorder.samples.count)") }
            try await session.stop()

            for (index, recorder) in recorders.enumerated() {
                let expected = Self.colours[index].rgb
                for received in recorder.samples.items.suffix(3) {
                    let buffer = try #require(received.sample.pixelBuffer)
                    let rgb = try #require(PixelSampler(buffer).rgb(x: 160, y: 90))
                    let distance = abs(rgb.0 - expected.0) + abs(rgb.1 - expected.1) + abs(rgb.2 - expected.2)
                    #expect(distance < 60, "camera \(index) (\(nodes[index])) shows \(rgb), not \(expected)")
                }
                let stamps = recorder.samples.items.map(\.sample.presentationTimeStamp)
                #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 })
                #expect(recorder.accounting.isComplete, "camera \(index): \(recorder.accounting)")
            }
        }

        /// Two vivid cameras at the same rate: the synchronizer pairs each frame of the first with
        /// the second's nearest by their kernel timestamps, never one more than half a frame away,
        /// and a frame it could not pair (the second camera's arrived too late under load, or
        /// just past half a frame: vivid instances started together share their frame times
        /// within a frame) is reported as unmatched, never left out silently.
        @Test func twoVividCamerasArePairedWithinHalfAFrame() async throws {
            let nodes = Array(VMEnvironment.vividNodes.prefix(2))
            try #require(nodes.count == 2)
            let devices = try nodes.map { try VMEnvironment.device(at: $0) }
            for (node, device) in zip(nodes, devices) {
                try V4L2Ctl.set(node, ["timestamp_source": "1"])
                try VMCapture.configure(device, try VMCapture.format(device, fourCC: "YUYV", width: 320, height: 180), fps: 25)
            }
            let (session, outputs) = try Self.session(devices)
            let synchronizer = try CaptureDataOutputSynchronizer(dataOutputs: outputs)
            let collections = Recorder<CaptureSynchronizedDataCollection>()
            let watch = Task { for await collection in synchronizer.collections { collections.append(collection) } }
            defer { watch.cancel() }
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await collections.wait(forCount: 30, timeout: .seconds(60)))
            try await session.stop()
            // Half a frame is half the first camera's interval before the frame, as the
            // synchronizer measures it on the kernel's timestamps (40 ms give or take their
            // jitter): two cameras half a frame out of phase pair at 20 ms and a few µs.
            let delivered = collections.items.filter { $0[outputs[0]]?.sampleBufferWasDropped == false }
            let settled = delivered.indices.dropFirst(5).prefix(25)   // the first may predate the second camera's start
            let gaps = settled.compactMap { index -> (gap: MediaTime, halfFrame: MediaTime)? in
                let collection = delivered[index]
                guard let other = collection[outputs[1]] else { return nil }
                let gap = other.timestamp > collection.timestamp ? other.timestamp - collection.timestamp : collection.timestamp - other.timestamp
                return (gap, (collection.timestamp - delivered[index - 1].timestamp).multiplied(by: 1, dividedBy: 2))
            }
            let statistics = synchronizer.statistics
            #expect(gaps.allSatisfy { $0.gap <= $0.halfFrame },
                    "pairs further apart than half a frame (gap, half the frame before): \(gaps)")
            #expect(gaps.count * 2 >= settled.count, "\(gaps.count) of \(settled.count) paired; \(statistics)")
            // A collection for a frame the first camera's output dropped (under load) holds that
            // drop alone: nothing to pair, so not unmatched.
            let unpaired = collections.items.filter { $0[outputs[0]]?.sampleBufferWasDropped == false && $0[outputs[1]] == nil }.count
            // (The statistics may count collections the stream has not handed over yet.)
            #expect(statistics.unmatched >= unpaired, "every collection of a frame without the second camera is counted as unmatched: \(unpaired) without, \(statistics)")
        }
    }
}
