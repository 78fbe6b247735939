import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// CaptureDataOutputSynchronizer over two cameras of one multi-camera session.
    @Suite(.serialized)
    struct DataOutputSynchronizerTests {
        final class Collections: CaptureDataOutputSynchronizerDelegate {
            let received = Recorder<CaptureSynchronizedDataCollection>()
            func dataOutputSynchronizer(_ synchronizer: CaptureDataOutputSynchronizer, didOutput collection: CaptureSynchronizedDataCollection) {
                received.append(collection)
            }
        }

        /// Every collection pairs the master frame with the other camera's frame nearest in
        /// time, checked against every frame the other camera delivered.
        @Test func eachMasterFrameIsPairedWithTheNearestFrameOfTheOtherCamera() async throws {
            let rig = try CameraRig(cameras: 2, label: "sync")
            defer { rig.remove() }
            let session = try rig.makeSession()
            let synchronizer = try CaptureDataOutputSynchronizer(dataOutputs: rig.outputs)
            let collections = Collections()
            synchronizer.setDelegate(collections, queue: nil)
            // The other camera's frames as its output delivered them (its stream sees them all).
            let others = Recorder<MediaTime>()
            let watch = Task {
                for await sample in rig.outputs[1].sampleBuffers { others.append(sample.presentationTimeStamp) }
            }
            defer { watch.cancel() }
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await collections.received.wait(forCount: 30))
            try await session.stop()

            #expect(rig.recorders.allSatisfy { $0.samples.count == 0 }, "the outputs' own delegates are not called while synchronized")
            let tolerance = frameDuration(fps: 30).multiplied(by: 1, dividedBy: 2)
            let otherTimes = others.items
            var paired = 0
            for collection in collections.received.items.prefix(30) {
                let master = try #require(collection[rig.outputs[0]])
                #expect(master.timestamp == collection.timestamp && master.sampleBuffer?.pixelBuffer?.width == 160)
                guard let other = collection[rig.outputs[1]], let sample = other.sampleBuffer else {
                    #expect(collection.unmatchedOutputs.contains(rig.outputs[1]))
                    // Unmatched only if the other camera really had no frame within tolerance.
                    #expect(!otherTimes.contains { distance($0, collection.timestamp) <= tolerance }, "a frame within tolerance was left out at \(collection.timestamp)")
                    continue
                }
                paired += 1
                #expect(sample.pixelBuffer?.width == 192, "the other camera's frame")
                #expect(distance(other.timestamp, collection.timestamp) <= tolerance)
                let nearest = try #require(otherTimes.min { distance($0, collection.timestamp) < distance($1, collection.timestamp) })
                #expect(distance(other.timestamp, collection.timestamp) == distance(nearest, collection.timestamp),
                        "paired \(other.timestamp) with \(collection.timestamp), nearest was \(nearest)")
            }
            // Two 30 fps cameras: within half a frame of every master frame there is always one.
            #expect(paired >= 28, "\(paired) of 30 collections paired; \(synchronizer.statistics)")
            let statistics = synchronizer.statistics
            #expect(statistics.collections >= 30 && statistics.matched >= paired)
        }

        /// A camera unplugged mid-stream delays the master's collections only briefly; they go on,
        /// reporting the lost camera as unmatched.
        @Test func aLostCameraLeavesTheOthersSynchronized() async throws {
            let rig = try CameraRig(cameras: 2, label: "sync-unplug")
            defer {
                try? rig.cameras[1].simulateReconnect()
                rig.remove()
            }
            let session = try rig.makeSession()
            let synchronizer = try CaptureDataOutputSynchronizer(dataOutputs: rig.outputs)
            let collections = Collections()
            synchronizer.setDelegate(collections, queue: nil)
            try await session.start()
            defer { try? session.stopRunning() }
            #expect(await collections.received.wait(forCount: 5))
            try rig.cameras[1].simulateDisconnect()
            let lostAt = MediaTime.now
            #expect(await collections.received.wait { items in
                items.filter { $0.timestamp > lostAt + frameDuration(fps: 5) && $0.unmatchedOutputs.count == 1 }.count >= 10
            }, "the master's collections stopped with the other camera")
        }

        @Test func badOutputListsAreRefused() throws {
            let output = CaptureVideoDataOutput()
            #expect(throws: CaptureError.self) { try CaptureDataOutputSynchronizer(dataOutputs: []) }
            #expect(throws: CaptureError.self) { try CaptureDataOutputSynchronizer(dataOutputs: [output, output]) }
            #expect(throws: CaptureError.self) { try CaptureDataOutputSynchronizer(dataOutputs: [CaptureMovieFileOutput()]) }
            let first = try CaptureDataOutputSynchronizer(dataOutputs: [output])
            #expect(throws: CaptureError.self) { try CaptureDataOutputSynchronizer(dataOutputs: [CaptureVideoDataOutput(), output]) }
            _ = first
        }
    }
}

private func distance(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a > b ? a - b : b - a }
