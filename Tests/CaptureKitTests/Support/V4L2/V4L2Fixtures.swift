import Foundation
import Synchronization
@testable import CaptureKit

/// Scripts and helpers the V4L2 suites share.
enum V4L2Fixtures {
    static let width = 16
    static let height = 8

    static func fraction(_ numerator: UInt32, _ denominator: UInt32) -> V4L2Fraction {
        V4L2Fraction(numerator: numerator, denominator: denominator)
    }

    /// A YUYV camera with one 16x8 size at 30 and 15 fps.
    static func yuyvScript() -> ScriptedV4L2Device.Script {
        var script = ScriptedV4L2Device.Script()
        script.formats = [ScriptedV4L2Device.FormatEntry(
            description: V4L2FormatDescription(fourCC: .yuyv, description: "YUYV 4:2:2", isCompressed: false),
            sizes: [.discrete(width: width, height: height)],
            intervals: [.discrete(fraction(1, 30)), .discrete(fraction(1, 15))])]
        return script
    }

    /// A YUYV frame whose bytes all equal `value`.
    static func yuyvFrame(_ value: UInt8, sequence: UInt32, timestamp: Int64 = 0) -> ScriptedV4L2Device.Frame {
        ScriptedV4L2Device.Frame(bytes: [UInt8](repeating: value, count: width * 2 * height), sequence: sequence,
                                 timestamp: timestamp == 0 ? 1_000_000_000 + Int64(sequence) * 33_333_333 : timestamp)
    }

    /// A backend over one scripted device (a fresh copy of `script` per open).
    static func backend(_ script: ScriptedV4L2Device.Script, bufferCount: Int = 4) throws -> (V4L2DeviceBackend, ScriptedOpener) {
        let opener = ScriptedOpener { ScriptedV4L2Device(script: script) }
        let node = V4L2Node(path: "/dev/video-scripted", capability: script.capability, bufferType: .capture, sysfs: V4L2SysfsInfo(), byIDName: nil)
        return (try V4L2DeviceBackend(node: node, opener: opener, bufferCount: bufferCount), opener)
    }

    /// What a stream handed its sink.
    enum Record: Sendable {
        case sample(SampleBuffer)
        case dropped(Int)
        case disconnected
        case failed(CaptureError)
        case other

        var sample: SampleBuffer? { if case .sample(let s) = self { return s } else { return nil } }
        var dropped: Int { if case .dropped(let n) = self { return n } else { return 0 } }
    }

    static func sink(_ recorder: Recorder<Record>) -> StreamSink {
        StreamSink(deliver: { recorder.append(.sample($0)) }, event: { event in
            switch event {
            case .droppedFrames(let count): recorder.append(.dropped(count))
            case .disconnected: recorder.append(.disconnected)
            case .failed(let error): recorder.append(.failed(error))
            default: recorder.append(.other)
            }
        })
    }

    /// The configuration of the backend's first format at 30 fps.
    static func configuration(_ backend: V4L2DeviceBackend) -> StreamConfiguration {
        StreamConfiguration(format: backend.formats[0], frameDuration: MediaTime(value: 1, timescale: 30))
    }
}
