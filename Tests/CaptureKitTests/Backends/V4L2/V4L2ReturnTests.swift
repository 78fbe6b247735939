import Foundation
import Glibc
import Synchronization
import Testing
@testable import CaptureKit

/// A V4L2 stream that outlives its camera, over a scripted node in a made-up /dev: the node
/// answers ENODEV mid-stream (unplugged), then the same camera (or another, or one that refuses
/// the old format) answers again, and the stream resumes, or says why not.
@Suite("V4L2Return", .excludable)
struct V4L2ReturnTests {
    typealias Record = ReturnableScriptedCamera.Record

    /// Frames `first..<first + count`, 1/30 s apart from `start` nanoseconds, then ENODEV.
    static func script(frames count: Int, startingAt start: Int64, card: String = "Scripted Camera") -> ScriptedV4L2Device.Script {
        var script = V4L2Fixtures.yuyvScript()
        script.capability.card = card
        script.frames = (0..<count).map { V4L2Fixtures.yuyvFrame(UInt8($0), sequence: UInt32($0), timestamp: start + Int64($0) * 33_333_333) }
        script.endErrno = ENODEV
        return script
    }

    /// Back after 2 s: the frames it would have captured meanwhile are one skip report, and the
    /// numbers run on from the last frame before the loss across the gap.
    @Test func aReturnedCameraStreamsOnWithTheGapReported() async throws {
        let camera = try ReturnableScriptedCamera { returned in
            Self.script(frames: returned ? 3 : 5, startingAt: returned ? 3_000_000_000 : 1_000_000_000)
        }
        let backend = try camera.backend()
        let records = Recorder<Record>()
        let stream = try backend.startStream(V4L2Fixtures.configuration(backend), sink: camera.sink(records))
        defer { stream.stop() }
        // At least: the returned camera is lost again after its frames, and back again, and so on,
        // so a test task scheduled late finds more.
        let resumed = await records.wait(timeout: .seconds(10)) { $0.filter { if case .sample = $0 { true } else { false } }.count >= 8 }
        #expect(resumed, "\(records.items)")
        #expect(backend.isConnected)
        let items = records.items
        let expected: [Record] = (0..<5).map { .sample(number: UInt64($0), nanoseconds: 1_000_000_000 + Int64($0) * 33_333_333) }
            + [.disconnected, .reconnected, .dropped(55)]
            + (0..<3).map { .sample(number: UInt64(60 + $0), nanoseconds: 3_000_000_000 + Int64($0) * 33_333_333) }
        // Frame 4 ends at 1.1667 s, the next starts at 3.0 s: 55 frame times, numbers 5…59.
        #expect(Array(items.prefix(expected.count)) == expected)
    }

    /// Back without its format (the driver substitutes another size): reported once, and the
    /// stream keeps waiting rather than streaming something else.
    @Test func aCameraBackWithoutItsFormatIsReportedAndNotStreamed() async throws {
        let camera = try ReturnableScriptedCamera { returned in
            var script = Self.script(frames: 2, startingAt: 1_000_000_000)
            if returned {
                script.substituteFormat = { V4L2PixFormat(fourCC: $0.fourCC, width: $0.width / 2, height: $0.height / 2) }
            }
            return script
        }
        let backend = try camera.backend()
        let records = Recorder<Record>()
        let stream = try backend.startStream(V4L2Fixtures.configuration(backend), sink: camera.sink(records))
        defer { stream.stop() }
        #expect(await records.wait(timeout: .seconds(10)) { $0.contains(.cannotResume(.unsupportedFormat)) }, "\(records.items)")
        // Several looks later, still one report and no frame.
        let opensAtReport = camera.opensSinceLoss.count
        #expect(await camera.opensSinceLoss.wait(forCount: opensAtReport + 6))
        #expect(records.items.filter { $0 == .cannotResume(.unsupportedFormat) }.count == 1)
        #expect(!records.items.contains(.reconnected))
        #expect(records.items.filter { if case .sample = $0 { true } else { false } }.count == 2)
    }

    /// Another camera in the lost one's node (another card name: another unique ID) is not
    /// taken for it.
    @Test func anotherCameraInTheSameNodeIsNotTakenForTheLostOne() async throws {
        let camera = try ReturnableScriptedCamera { returned in
            Self.script(frames: 2, startingAt: 1_000_000_000, card: returned ? "Another Camera" : "Scripted Camera")
        }
        let backend = try camera.backend()
        let records = Recorder<Record>()
        let stream = try backend.startStream(V4L2Fixtures.configuration(backend), sink: camera.sink(records))
        defer { stream.stop() }
        #expect(await records.wait(timeout: .seconds(10)) { $0.contains(.disconnected) })
        #expect(await camera.opensSinceLoss.wait(forCount: 5), "the stream keeps looking")
        #expect(!records.items.contains(.reconnected), "\(records.items)")
        #expect(records.items.filter { if case .sample = $0 { true } else { false } }.count == 2)
    }

    /// A camera that stops delivering without an error (hung firmware, a virtual camera whose
    /// producer quit), with a stall timeout: let go as if unplugged, reopened, and back with its
    /// first frame. Reopened but still silent twice, it is let go again each time without a
    /// second loss being reported; once it delivered, its next stall is a loss again.
    @Test func aStalledCameraIsLetGoAndStreamsOnWhenItDeliversAgain() async throws {
        let captures = Recorder<Int>()
        let camera = try ReturnableScriptedCamera { returned in
            // Each look after the loss opens the node twice: discovery's VIDIOC_QUERYCAP, then the capture.
            if returned { captures.append(captures.count) }
            var script = Self.script(frames: returned ? 3 : 5, startingAt: returned ? 3_000_000_000 : 1_000_000_000)
            if returned, captures.count <= 4 { script.frames = [] }
            script.endErrno = nil   // no error, ever: the frames just stop
            return script
        }
        let backend = try camera.backend()
        let records = Recorder<Record>()
        var configuration = V4L2Fixtures.configuration(backend)
        configuration.stallTimeout = .milliseconds(300)
        let stream = try backend.startStream(configuration, sink: camera.sink(records))
        defer { stream.stop() }
        let lostAgain = await records.wait(timeout: .seconds(20)) { $0.filter { $0 == .disconnected }.count >= 2 }
        #expect(lostAgain, "\(records.items)")
        let before: [Record] = (0..<5).map { .sample(number: UInt64($0), nanoseconds: 1_000_000_000 + Int64($0) * 33_333_333) }
        let after: [Record] = (0..<3).map { .sample(number: UInt64(60 + $0), nanoseconds: 3_000_000_000 + Int64($0) * 33_333_333) }
        let expected: [Record] = before + [.disconnected, .reconnected, .dropped(55)] + after + [.disconnected]
        #expect(Array(records.items.prefix(expected.count)) == expected)
        #expect(captures.count >= 6, "reopened \(captures.count / 2) times: the two silent captures were let go")
    }
}
