internal import CLibCamera
import Foundation

/// The V4L2 nodes libcamera maps to its cameras (`CameraManager::get(dev_t)`): how the camera
/// policy tells which cameras a plain V4L2 node already reaches, and how a stream sees its
/// camera go (libcamera reports a vanished camera only for pipeline handlers that support
/// hot-plug, such as `uvcvideo`; vimc's, for one, never does).
enum LibCameraNodes {
    /// A device node and the device number it had.
    struct Node: Sendable, Hashable {
        var path: String
        var device: UInt64

        /// Whether the node is still there, as the same device.
        var isPresent: Bool {
            var status = stat()
            return stat(path, &status) == 0 && UInt64(status.st_rdev) == device
        }
    }

    /// `/dev/video*` nodes that are capture nodes of camera `id`.
    static func videoNodes(of id: String) -> [String] {
        nodeOwners().filter { $0.id == id }.map(\.node)
    }

    /// The capture nodes of camera `id`, with their device numbers.
    static func nodes(of id: String) -> [Node] {
        owners().filter { $0.id == id }.map(\.node)
    }

    /// Every `/dev/video*` node libcamera maps to a camera, with the camera's id.
    static func nodeOwners() -> [(node: String, id: String)] {
        owners().map { ($0.node.path, $0.id) }
    }

    private static func owners() -> [(node: Node, id: String)] {
        guard LibCamera.isAvailable else { return [] }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []).filter { $0.hasPrefix("video") }.sorted()
        return names.compactMap { name -> (Node, String)? in
            let path = "/dev/\(name)"
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            var id = [CChar](repeating: 0, count: 256)
            guard LibCamera.api.camera_for_devnum(status.st_rdev, &id, id.count) == 0 else { return nil }
            return (Node(path: path, device: UInt64(status.st_rdev)), String(decoding: id.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }
}
