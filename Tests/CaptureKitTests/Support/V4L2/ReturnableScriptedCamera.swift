import Foundation
import Glibc
import Synchronization
@testable import CaptureKit

/// A scripted V4L2 camera in a made-up /dev (one node, `video0`) that can be lost and come
/// back: every open is a fresh scripted device, `script(false)` until its stream reports the
/// loss, `script(true)` (the camera as it returns) from then on. Every open after the loss is
/// logged, so a test can wait for the stream to have looked a few times.
final class ReturnableScriptedCamera: Sendable {
    /// What the stream told its sink, in order.
    enum Record: Sendable, Equatable {
        case sample(number: UInt64, nanoseconds: Int64)
        case dropped(Int)
        case disconnected
        case reconnected
        case cannotResume(CaptureError.Code)
        case failed(CaptureError.Code)
    }

    let root: URL
    let path: String
    let opener: ScriptedOpener
    let returned = Flag()
    let opensSinceLoss = Recorder<Int>()

    /// Whether the loss was reported; shared with the opener's and the sink's closures.
    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        var isSet: Bool { value.load(ordering: .acquiring) }
        func set() { value.store(true, ordering: .releasing) }
    }

    /// With `followsNodeFile`, the camera is unplugged by removing its node file (``unplug()``)
    /// and plugged back by making it again (``plugBack()``), as a watched /dev sees a USB camera.
    init(followsNodeFile: Bool = false, _ script: @escaping @Sendable (_ returned: Bool) -> ScriptedV4L2Device.Script) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("ck-v4l2-return-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        path = root.appendingPathComponent("video0").path
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw CaptureError(.fileError, "cannot make \(path)") }
        let returned = returned, opens = opensSinceLoss, path = path
        opener = ScriptedOpener {
            let back = returned.isSet
            if back { opens.append(opens.count) }
            var scripted = script(back)
            if followsNodeFile { scripted.nodeFile = path }
            return ScriptedV4L2Device(path: path, script: scripted)
        }
        opener.followsNodeFiles = followsNodeFile
    }

    /// Removes the node file: the camera is gone.
    func unplug() throws { try FileManager.default.removeItem(atPath: path) }

    /// Makes the node file again: the camera is back.
    func plugBack() throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw CaptureError(.fileError, "cannot make \(path)") }
    }

    /// The sink a test streams into: records what it is told, and marks the loss (on the
    /// stream thread, before it looks for the camera again).
    func sink(_ records: Recorder<Record>) -> StreamSink {
        let returned = returned
        return StreamSink(deliver: { records.append(.sample(number: $0.sequenceNumber, nanoseconds: $0.presentationTimeStamp.nanoseconds ?? 0)) },
                          event: { event in
            switch event {
            case .droppedFrames(let count): records.append(.dropped(count))
            case .disconnected:
                returned.set()
                records.append(.disconnected)
            case .reconnected: records.append(.reconnected)
            case .cannotResume(let error): records.append(.cannotResume(error.code))
            case .failed(let error): records.append(.failed(error.code))
            case .endOfStream: break
            }
        })
    }

    func backend() throws -> V4L2DeviceBackend {
        let io = try opener.open(path)
        let capability = try io.queryCapability()
        io.close()
        let node = V4L2Node(path: path, capability: capability, bufferType: .capture, sysfs: V4L2SysfsInfo(), byIDName: nil)
        return try V4L2DeviceBackend(node: node, opener: opener,
                                     discovery: V4L2Discovery(devDirectory: root.path, sysRoot: root.path, opener: opener))
    }

    deinit { try? FileManager.default.removeItem(at: root) }
}
