import Foundation
import Testing
@testable import CaptureKit

/// The metadata output's settings, without a session.
@Suite(.excludable)
struct MetadataOutputSettingsTests {
    @Test func unsupportedTypesAreRefusedAndNothingIsLookedForByDefault() throws {
        let output = CaptureMetadataOutput()
        #expect(output.metadataObjectTypes.isEmpty)
        #expect(Set(output.availableMetadataObjectTypes) == Set(MetadataObject.ObjectType.allCases))
        try output.setMetadataObjectTypes([.qr])
        #expect(throws: CaptureError.self) { try output.setMetadataObjectTypes([.ean13, MetadataObject.ObjectType(rawValue: "aztec")]) }
        #expect(output.metadataObjectTypes == [.qr])
        #expect(throws: CaptureError.self) { try output.setRectOfInterest(CGRect(x: 0.5, y: 0.5, width: 0.6, height: 0.2)) }
        #expect(throws: CaptureError.self) { try output.setRectOfInterest(CGRect(x: 0.1, y: 0.1, width: 0, height: 0.2)) }
        #expect(output.rectOfInterest == CGRect(x: 0, y: 0, width: 1, height: 1))
    }
}

/// The metadata output end to end: virtual cameras showing codes drawn by qrencode, GNU
/// barcode and zint, read back through a running session and compared with what `zbarimg`
/// reads and where the code was drawn.
extension RealTimeCaptureTests {
    @Suite("MetadataOutput", .tags(.childProcess))
    struct MetadataOutputTests {
        /// How far a reported corner may be from where the code was drawn (normalized).
        static let tolerance = 0.02

        /// Runs `frames` on a virtual camera into a metadata output set up by `configure`
        /// until `until` holds for the recorded batches (or 30 s pass: a deadline, not a rate);
        /// returns the recorder.
        private func scan(_ frames: [PixelBuffer], label: String, types: [MetadataObject.ObjectType]? = nil,
                          configure: (CaptureMetadataOutput) throws -> Void = { _ in },
                          until: @escaping @Sendable ([[MachineReadableCodeObject]]) -> Bool) async throws
            -> (recorder: MetadataRecorder, output: CaptureMetadataOutput, satisfied: Bool) {
            let camera = try makeCodeCamera(label, frames: frames)
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let rig = try ScanRig(camera: camera, types: types ?? CaptureMetadataOutput.supportedTypes, configure: configure)
            try await rig.session.start()
            let satisfied = await rig.recorder.batches.wait(timeout: .seconds(30), until: until)
            try await rig.session.stop()
            Self.expectFrameTimes(rig.recorder.codes, video: rig.video)
            return (rig.recorder, rig.output, satisfied)
        }

        /// Checks what the camera sent beside the scans (every frame delivered or reported
        /// dropped) and that every object carries the exact time and duration of a frame.
        static func expectFrameTimes(_ codes: [MachineReadableCodeObject], video: SampleRecorder,
                                     sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(video.accounting.isComplete, "video: \(video.accounting)", sourceLocation: sourceLocation)
            guard let reference = video.samples.items.first?.sample.presentationTimeStamp else { return }
            let duration = frameDuration(fps: 30)
            for object in codes {
                let frames = (object.time - reference).convertScale(30).value
                #expect(object.time == reference + duration * frames && object.duration == duration,
                        "\(object.type) at \(object.time) for \(object.duration) is no frame's time", sourceLocation: sourceLocation)
            }
        }

        // MARK: Every type

        @Test(arguments: CaptureMetadataOutput.supportedTypes)
        func everyTypeDecodesToTheExactText(_ type: MetadataObject.ObjectType) async throws {
            let code = try MetadataFixtures.code(type)
            let payload = try #require(MetadataFixtures.payloads[type]).payload
            // The oracle read the drawing as this very type and found what was encoded (plus the
            // check digit or character the symbology adds).
            let checkCharacterInside = type == .codabar ? String(payload.dropLast()) : payload
            #expect(code.expected.contains(payload) || code.expected.hasPrefix(checkCharacterInside), "zbarimg read \(code.expected)")
            var picture = CodeFrame()
            // Centred: zxing-cpp 1.4's Data Matrix detector searches outwards from the centre.
            try picture.paste(code, x: (picture.width - code.width) / 2, y: (picture.height - code.height) / 2)
            // Every available type is looked for at once, so each must also be told apart.
            let result = try await scan([try picture.pixelBuffer(.nv12)], label: "type \(type)") { $0.count >= 3 }
            #expect(result.satisfied)
            let codes = result.recorder.codes
            #expect(!codes.isEmpty)
            let placement = try #require(picture.placements.first)
            let drawn = [(placement.minX, placement.minY), (placement.maxX, placement.minY),
                         (placement.maxX, placement.maxY), (placement.minX, placement.maxY)]
            for object in codes {
                #expect(object.type == type)
                #expect(object.stringValue == code.expected)
                #expect(object.data == Array(code.expected.utf8))
                // Upright and unmirrored: corners are the drawn ones, scaled to the frame.
                for (reported, expected) in zip(object.corners, drawn) {
                    #expect(abs(reported.x - Double(expected.0) / 640) <= Self.tolerance && abs(reported.y - Double(expected.1) / 480) <= Self.tolerance,
                            "\(type): corner \(reported) drawn at \(expected)")
                }
            }
        }

        // MARK: Where

        /// Where device pixel (x, y) of a `width`×`height` frame appears once the frame is turned
        /// `angle`° clockwise about its centre and then mirrored, normalized: worked out as a
        /// rotation matrix here, independently of the output's quarter-turn tables.
        static func shown(_ x: Double, _ y: Double, width: Double, height: Double, angle: Double, mirrored: Bool) -> CGPoint {
            let radians = angle * .pi / 180
            let (c, s) = (cos(radians).rounded(), sin(radians).rounded())
            let dx = x - width / 2, dy = y - height / 2
            let turns = Int(angle / 90) % 2 == 1
            let (shownWidth, shownHeight) = turns ? (height, width) : (width, height)
            var u = dx * c - dy * s + shownWidth / 2
            let v = dx * s + dy * c + shownHeight / 2
            if mirrored { u = shownWidth - u }
            return CGPoint(x: u / shownWidth, y: v / shownHeight)
        }

        @Test(arguments: CaptureConnection.VideoOrientation.allCases, [false, true])
        func cornersAreWhereTheCodeWasDrawn(_ orientation: CaptureConnection.VideoOrientation, mirrored: Bool) async throws {
            let qr = try MetadataFixtures.code(.qr)
            let bars = try MetadataFixtures.code(.code128)
            let matrix = try MetadataFixtures.code(.dataMatrix)
            let stacked = try MetadataFixtures.code(.pdf417)
            var picture = CodeFrame()
            try picture.paste(qr, x: 30, y: 20)
            try picture.paste(bars, x: picture.width - bars.width - 20, y: picture.height - bars.height - 10)
            try picture.paste(matrix, x: (picture.width - matrix.width) / 2, y: (picture.height - matrix.height) / 2)
            try picture.paste(stacked, x: 10, y: picture.height - stacked.height - 10)
            let result = try await scan([try picture.pixelBuffer(.nv12)], label: "corners", types: [.qr, .code128, .dataMatrix, .pdf417],
                                        configure: { output in
                let connection = try #require(output.connection(with: .video))
                connection.videoOrientation = orientation
                connection.isVideoMirrored = mirrored
            }, until: { batches in batches.filter { $0.count == 4 }.count >= 2 })
            #expect(result.satisfied)
            let angle = orientation.rotationAngle
            for placement in picture.placements {
                let found = result.recorder.codes.filter { $0.type == placement.code.type }
                #expect(!found.isEmpty, "\(placement.code.type) not found")
                // The code's own top-left, top-right, bottom-right, bottom-left as drawn (upright).
                let drawn = [(placement.minX, placement.minY), (placement.maxX, placement.minY),
                             (placement.maxX, placement.maxY), (placement.minX, placement.maxY)].map {
                    Self.shown(Double($0.0), Double($0.1), width: Double(picture.width), height: Double(picture.height), angle: angle, mirrored: mirrored)
                }
                for object in found {
                    #expect(object.corners.count == 4)
                    for (reported, expected) in zip(object.corners, drawn) {
                        #expect(abs(reported.x - expected.x) <= Self.tolerance && abs(reported.y - expected.y) <= Self.tolerance,
                                "\(placement.code.type) \(orientation) mirrored \(mirrored): corner \(reported) drawn at \(expected)")
                    }
                    let xs = drawn.map(\.x), ys = drawn.map(\.y)
                    #expect(abs(object.bounds.minX - xs.min()!) <= Self.tolerance && abs(object.bounds.maxX - xs.max()!) <= Self.tolerance)
                    #expect(abs(object.bounds.minY - ys.min()!) <= Self.tolerance && abs(object.bounds.maxY - ys.max()!) <= Self.tolerance)
                }
            }
        }

        @Test func paddedRowsAreScannedInPlace() async throws {
            // 330 pixels wide: every plane's rows are padded to 384 bytes, which the scanner
            // must neither copy away nor count as picture.
            let qr = try MetadataFixtures.code(.qr)
            var picture = CodeFrame(width: 330, height: 240)
            try picture.paste(qr, x: 180, y: 60)
            let frame = try picture.pixelBuffer(.yuv420p)
            #expect(frame.bytesPerRow(ofPlane: 0) > frame.width)
            let result = try await scan([frame], label: "padded", types: [.qr]) { $0.count >= 2 }
            #expect(result.satisfied)
            let placement = try #require(picture.placements.first)
            for object in result.recorder.codes {
                #expect(object.stringValue == qr.expected)
                #expect(abs(object.bounds.minX - Double(placement.minX) / 330) <= Self.tolerance)
                #expect(abs(object.bounds.maxX - Double(placement.maxX) / 330) <= Self.tolerance)
                #expect(abs(object.bounds.minY - Double(placement.minY) / 240) <= Self.tolerance)
            }
        }

        // MARK: Rect of interest

        @Test(arguments: [CaptureConnection.VideoOrientation.landscapeRight, .portrait])
        func codesOutsideTheRectOfInterestAreNotReported(_ orientation: CaptureConnection.VideoOrientation) async throws {
            let qr = try MetadataFixtures.code(.qr)
            let bars = try MetadataFixtures.code(.ean13)
            var picture = CodeFrame()
            try picture.paste(qr, x: 30, y: 30)                                            // device's left half
            try picture.paste(bars, x: picture.width - bars.width - 20, y: 30)            // device's right half
            // The device's left half is the left half when upright, the top half when turned 90°.
            let rect = orientation == .portrait ? CGRect(x: 0, y: 0, width: 1, height: 0.5) : CGRect(x: 0, y: 0, width: 0.5, height: 1)
            let result = try await scan([try picture.pixelBuffer(.nv12)], label: "rect", types: [.qr, .ean13], configure: { output in
                try #require(output.connection(with: .video)).videoOrientation = orientation
                try output.setRectOfInterest(rect)
            }, until: { $0.count >= 10 })
            #expect(result.satisfied)
            #expect(result.recorder.codes.allSatisfy { $0.type == .qr })
            #expect(result.recorder.codes.allSatisfy { rect.contains(CGPoint(x: $0.bounds.midX, y: $0.bounds.midY)) })
            #expect(result.output.rectOfInterest == rect)
        }

        @Test func aDataMatrixAwayFromTheCentreIsFoundThroughTheRectOfInterest() async throws {
            // zxing-cpp 1.4 looks for Data Matrix outwards from the centre of what it is given,
            // so narrowing the search to a code in a corner is how a corner code is read.
            let matrix = try MetadataFixtures.code(.dataMatrix)
            var picture = CodeFrame()
            try picture.paste(matrix, x: 20, y: 20)
            let rect = CGRect(x: 0, y: 0, width: Double(matrix.width + 40) / 640, height: Double(matrix.height + 40) / 480)
            let result = try await scan([try picture.pixelBuffer(.nv12)], label: "matrix rect", types: [.dataMatrix],
                                        configure: { try $0.setRectOfInterest(rect) }, until: { $0.count >= 2 })
            #expect(result.satisfied)
            let placement = try #require(picture.placements.first)
            for object in result.recorder.codes {
                #expect(object.stringValue == matrix.expected)
                #expect(abs(object.bounds.minX - Double(placement.minX) / 640) <= Self.tolerance)
                #expect(abs(object.bounds.maxY - Double(placement.maxY) / 480) <= Self.tolerance)
            }
        }

        @Test func aRectOfInterestWithoutCodesReportsNothing() async throws {
            var picture = CodeFrame()
            try picture.paste(try MetadataFixtures.code(.qr), x: 30, y: 30)
            let camera = try makeCodeCamera("empty rect", frames: [try picture.pixelBuffer(.yuv420p)])
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let rig = try ScanRig(camera: camera, types: [.qr]) { try $0.setRectOfInterest(CGRect(x: 0.5, y: 0.5, width: 0.5, height: 0.5)) }
            let output = rig.output
            try await rig.session.start()
            // The video output's frames are the clock: wait (a deadline, not a rate) until ten
            // frames have been scanned, however slowly a loaded machine scans.
            #expect(await rig.video.samples.wait(timeout: .seconds(30)) { _ in output.statistics.scannedFrames >= 10 })
            try await rig.session.stop()
            #expect(rig.recorder.batches.count == 0)
            #expect(rig.video.accounting.isComplete, "video: \(rig.video.accounting)")
        }

        // MARK: When and who

        @Test func aFrameWithoutCodesProducesNothing() async throws {
            // The moving test pattern (bars, ramp, text, a box): busy, but no code.
            let camera = try makeTestCamera("no codes") { $0.pixelFormats = [.yuyv422] }
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let rig = try ScanRig(camera: camera, types: CaptureMetadataOutput.supportedTypes)
            let stream = rig.output.metadataObjects
            let streamed = Recorder<Int>()
            let reader = Task { for await objects in stream { streamed.append(objects.count) } }
            let output = rig.output
            try await rig.session.start()
            #expect(await rig.video.samples.wait(timeout: .seconds(30)) { _ in output.statistics.scannedFrames >= 10 })
            try await rig.session.stop()
            reader.cancel()
            #expect(rig.video.accounting.isComplete, "video: \(rig.video.accounting)")
            #expect(rig.output.statistics.framesWithObjects == 0)
            #expect(rig.recorder.batches.count == 0)
            #expect(streamed.count == 0)
        }

        /// A camera that is not live (unpaced, as a file device) is held back: every frame is
        /// scanned, none skipped, and every frame showing the code is found — the code in the
        /// second half of each 40-frame loop, scanned however fast the camera could go.
        @Test func aHeldBackCameraHasEveryFrameScanned() async throws {
            let camera = try makeCodeCamera("held back", frames: try qrCodeLoop(blank: 20, shown: 20), pacing: .unpaced)
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CaptureMetadataOutput()
            let session = try makeSession(camera: camera, preset: .inputPriority, outputs: [output])
            try output.setMetadataObjectTypes([.qr])
            let stream = output.metadataObjects
            try await session.start()
            var found = 0
            for await _ in stream {
                found += 1
                if found == 60 { break }
            }
            try await session.stop()
            let statistics = output.statistics
            #expect(statistics.skippedFrames == 0, "\(statistics)")
            // Frames 0...n-1 were scanned, in order: those of them that show the code, exactly.
            let scanned = statistics.scannedFrames
            let withCode = scanned / 40 * 20 + max(0, scanned % 40 - 20)
            #expect(statistics.framesWithObjects == withCode, "\(statistics): \(withCode) of the first \(scanned) frames show the code")
            #expect(scanned >= 3 * 40, "\(statistics)")
        }

        @Test func theStreamDeliversWhatTheDelegateGets() async throws {
            var picture = CodeFrame()
            try picture.paste(try MetadataFixtures.code(.code39), x: 100, y: 100)
            let camera = try makeCodeCamera("stream", frames: [try picture.pixelBuffer(.yuyv422)])
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let output = CaptureMetadataOutput()
            let session = try makeSession(camera: camera, outputs: [output])
            try output.setMetadataObjectTypes([.code39])
            let stream = output.metadataObjects
            try await session.start()
            var batches: [[MetadataObject]] = []
            for await objects in stream {
                batches.append(objects)
                if batches.count == 3 { break }
            }
            try await session.stop()
            let codes = batches.flatMap { $0 }.compactMap { $0 as? MachineReadableCodeObject }
            #expect(codes.count == 3)
            #expect(Set(codes.map(\.objectID)).count == 1)
            #expect(codes.allSatisfy { $0.stringValue == (try? MetadataFixtures.code(.code39).expected) })
            // One frame per batch, in order, each at a frame's exact time and lasting one frame
            // at 30 fps.
            #expect(zip(codes, codes.dropFirst()).allSatisfy { $0.time < $1.time })
            #expect(codes.allSatisfy { $0.duration == MediaTime(value: 1, timescale: 30) })
            let duration = frameDuration(fps: 30)
            for (previous, next) in zip(codes, codes.dropFirst()) {
                #expect(next.time - previous.time == duration * (next.time - previous.time).convertScale(30).value,
                        "\(previous.time) → \(next.time) is not whole frames")
            }
        }

        @Test func aSlowConsumerNeverSlowsCaptureOrOtherOutputs() async throws {
            var picture = CodeFrame()
            try picture.paste(try MetadataFixtures.code(.qr), x: 40, y: 40)
            let camera = try makeCodeCamera("slow", frames: [try picture.pixelBuffer(.nv12)])
            defer { CaptureDevice.removeVirtualDevice(camera) }
            // A quarter of a second per batch: far slower than the 30 fps camera.
            let busy: Int64 = 250_000_000
            let rig = try ScanRig(camera: camera, types: [.qr], delay: Double(busy) / 1e9)
            try await rig.session.start()
            #expect(await rig.video.samples.wait(forCount: 30, timeout: .seconds(30)))
            #expect(await rig.recorder.batches.wait(forCount: 3, timeout: .seconds(30)))
            try await rig.session.stop()

            // The video output: every frame delivered or reported dropped, timestamps exact.
            let duration = frameDuration(fps: 30)
            let video = rig.video.samples.items
            #expect(rig.video.accounting.isComplete, "\(rig.video.accounting)")
            let times = FrameTimestamps(video, frameDuration: duration)
            #expect(times.isExact, "\(times)")
            // The metadata output kept up by skipping to the newest frame, not by queueing.
            let batches = rig.recorder.batches.items
            let arrivals = rig.recorder.arrivals.items
            let statistics = rig.output.statistics
            #expect(statistics.skippedFrames > 0)
            // Every frame shows the code, so every scan is a batch. Frames are exactly 1/30 s
            // apart, so a batch's time names its frame.
            let reference = try #require(video.first)
            func frameNumber(_ time: MediaTime) -> Int64 {
                Int64(reference.sequenceNumber) + (time - reference.sample.presentationTimeStamp).convertScale(30).value
            }
            let scanned = try batches.map { batch in frameNumber(try #require(batch.first).time) }
            // Every frame between the first and the last scanned one was scanned or counted as
            // skipped.
            let first = try #require(scanned.first), last = try #require(scanned.last)
            #expect(statistics.scannedFrames + statistics.skippedFrames >= Int(last - first + 1), "\(statistics), frames \(first)...\(last)")
            // The camera hands a frame to every output before it makes the next, so when the
            // video output has frame j, the frame it got before j is waiting for the metadata
            // output too. When a batch's delegate call returns (at least 250 ms after it was
            // made), the next scan must be of that frame or a newer one.
            for (index, (previous, next)) in zip(scanned, scanned.dropFirst()).enumerated() {
                let seen = video.filter { $0.arrival < arrivals[index] + busy }
                guard seen.count >= 2 else { continue }
                let waiting = Int64(seen[seen.count - 2].sequenceNumber)
                #expect(next >= waiting, "after frame \(previous) the scanner took \(next), though \(waiting) was waiting")
            }
            // Capture went on during the slow delegate's calls: the video output received frames
            // the camera finished only after a call began, before it returned.
            let keptPace = arrivals.filter { called in
                video.contains { frame in
                    let captured = (frame.sample.presentationTimeStamp + frame.sample.duration).nanoseconds ?? .max
                    return captured > called && frame.arrival < called + busy
                }
            }
            #expect(!keptPace.isEmpty, "no frame was captured and delivered while the metadata delegate was busy")
        }

        /// Nothing stays in view across a restart: the code seen again after the session was
        /// stopped and started is a new object. (The tracking starts afresh with the first frame
        /// captured after the stop, not at the stop: frames still waiting to be scanned then
        /// keep their codes' identities, which `aCodeThatStaysInViewIsOneObject` caught.)
        @Test func aRestartedSessionSeesANewObject() async throws {
            let qr = try MetadataFixtures.code(.qr)
            var picture = CodeFrame(width: 320, height: 240)
            try picture.paste(qr, x: 40, y: 30)
            let camera = try makeCodeCamera("restart", frames: [try picture.pixelBuffer(.yuv420p)])
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let rig = try ScanRig(camera: camera, types: [.qr])
            try await rig.session.start()
            #expect(await rig.recorder.batches.wait(forCount: 3, timeout: .seconds(30)))
            try await rig.session.stop()
            let stopped = MonotonicClock.now()
            let before = Set(rig.recorder.codes.map(\.objectID))
            #expect(before.count == 1, "one code in view is one object: \(before)")
            try await rig.session.start()
            #expect(await rig.recorder.batches.wait(timeout: .seconds(30)) { $0.joined().contains { $0.time > stopped } })
            try await rig.session.stop()
            let after = Set(rig.recorder.codes.filter { $0.time > stopped }.map(\.objectID))
            #expect(!after.isEmpty && after.isDisjoint(with: before), "before the restart \(before), after \(after)")
        }

        /// A camera loops 30 frames in which a QR code is in view for frames 5–14 (moving a little
        /// each frame), gone for 15–19, back for 20–27 and gone again until frame 5 of the next
        /// loop: two appearances per loop, each one object, each a new one — as far as the scans
        /// can tell (a scanner that saw too few frames cannot know the code left).
        @Test func aCodeThatStaysInViewIsOneObject() async throws {
            let qr = try MetadataFixtures.code(.qr)
            let visible = Set(5...14).union(20...27)
            let frames = try (0..<30).map { index in
                var picture = CodeFrame(width: 320, height: 240)
                if visible.contains(index) { try picture.paste(qr, x: 20 + 4 * (index % 10), y: 30) }
                return try picture.pixelBuffer(.yuv420p)
            }
            let camera = try makeCodeCamera("one object", frames: frames)
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let rig = try ScanRig(camera: camera, types: [.qr])
            let (session, output, recorder, video) = (rig.session, rig.output, rig.recorder, rig.video)
            try await session.start()
            // Frames are exactly 1/30 s apart, so a reported time names its frame: frame n shows
            // picture n mod 30.
            #expect(await video.samples.wait(forCount: 1, timeout: .seconds(30)))
            let reference = try #require(video.samples.items.first)
            let frameNumber: @Sendable (MediaTime) -> Int64 = { time in
                Int64(reference.sequenceNumber) + (time - reference.sample.presentationTimeStamp).convertScale(30).value
            }
            /// Which appearance of the code frame `n` belongs to (two per loop), nil when it shows none.
            let appearance: @Sendable (Int64) -> Int64? = { n in
                let picture = Int(n % 30)
                guard n >= 0, visible.contains(picture) else { return nil }
                return 2 * (n / 30) + (picture < 15 ? 0 : 1)
            }
            // Wait (a deadline, not a rate) until one appearance was read at least twice and a
            // later one at least once, however slowly a loaded machine scans; and until a frame
            // without the code was scanned too.
            #expect(await recorder.batches.wait(timeout: .seconds(30)) { batches in
                let counts = Dictionary(grouping: batches.joined().compactMap { appearance(frameNumber($0.time)) }, by: { $0 }).mapValues(\.count)
                return counts.contains { seen, count in count >= 2 && counts.keys.contains { $0 > seen } }
            })
            #expect(await video.samples.wait(timeout: .seconds(30)) { _ in output.statistics.scannedFrames > output.statistics.framesWithObjects })
            try await session.stop()
            // A scan under way when the session stopped may still deliver, so the batches and
            // the scan counts recorded beside them are read as one snapshot on the delegate's
            // queue, where both are appended.
            let (batches, scans) = recorder.queue.sync { (recorder.batches.items, recorder.scans.items) }

            let codes = batches.flatMap { $0 }
            #expect(batches.allSatisfy { $0.count == 1 })
            var objectsByAppearance: [Int64: Set<Int>] = [:]
            for object in codes {
                let frame = frameNumber(object.time)
                #expect(object.time == reference.sample.presentationTimeStamp + frameDuration(fps: 30) * (frame - Int64(reference.sequenceNumber)),
                        "reported time \(object.time) is no frame's")
                #expect(object.stringValue == qr.expected)
                guard let seen = appearance(frame) else {
                    Issue.record("frame \(frame) has no code but \(object) was reported")
                    continue
                }
                objectsByAppearance[seen, default: []].insert(object.objectID)
            }
            #expect(objectsByAppearance.count >= 2)
            // The tracker's promise, sighting by sighting, from how many scans in between found
            // nothing (which a loaded machine changes, and the check follows): within one
            // appearance, one empty scan (a frame the scanner could not read) keeps the object;
            // from one appearance to the next, two or more empty scans make a new one.
            for index in codes.indices.dropFirst() where scans.count == codes.count {
                let (before, after) = (codes[index - 1], codes[index])
                let empty = scans[index] - scans[index - 1] - 1
                let (was, now) = (appearance(frameNumber(before.time)), appearance(frameNumber(after.time)))
                if was == now, empty <= 1 {
                    #expect(before.objectID == after.objectID, "appearance \(String(describing: now)) split over \(empty) empty scans")
                }
                if was != now, empty >= 2 {
                    #expect(before.objectID != after.objectID, "appearances \(String(describing: was)) and \(String(describing: now)) are one object over \(empty) empty scans")
                }
            }
            #expect(scans.count == codes.count)
        }
    }
}
