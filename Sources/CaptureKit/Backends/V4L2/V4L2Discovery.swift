import Foundation

/// Finds capture nodes: lists `/dev/video*`, asks each what it is (VIDIOC_QUERYCAP), keeps the
/// video-capture ones (single- or multi-planar; metadata, output-only, radio and VBI nodes are
/// skipped) and one node per physical device (the lowest numbered).
struct V4L2Discovery: Sendable {
    var devDirectory = "/dev"
    var sysRoot = "/sys"
    var opener: any V4L2DeviceOpener = V4L2SystemOpener()

    /// `videoN` names in `devDirectory`, in number order.
    func nodeNames() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: devDirectory)) ?? []
        return names.compactMap { name -> (String, Int)? in
            guard name.hasPrefix("video"), let number = Int(name.dropFirst(5)) else { return nil }
            return (name, number)
        }
        .sorted { $0.1 < $1.1 }
        .map(\.0)
    }

    /// The capture nodes present now, one per physical device, and the nodes that could not be
    /// opened (with why).
    func nodes() -> (nodes: [V4L2Node], failures: [String: CaptureError]) {
        var found: [V4L2Node] = []
        var failures: [String: CaptureError] = [:]
        let byID = byIDLinks()
        for name in nodeNames() {
            let path = "\(devDirectory)/\(name)"
            let capability: V4L2Capability
            do throws(CaptureError) {
                let io = try opener.open(path)
                defer { io.close() }
                capability = try io.queryCapability()
            } catch {
                failures[path] = error
                continue
            }
            guard let bufferType = capability.captureBufferType else { continue }
            let node = V4L2Node(path: path, capability: capability, bufferType: bufferType,
                                sysfs: V4L2SysfsInfo.read(node: name, sysRoot: sysRoot), byIDName: byID[path])
            if !found.contains(where: { $0.groupKey == node.groupKey }) { found.append(node) }
        }
        return (found, failures)
    }

    /// Node path → by-id name, preferring the name of interface index 0.
    private func byIDLinks() -> [String: String] {
        let directory = "\(devDirectory)/v4l/by-id"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        var links: [String: String] = [:]
        for name in names {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)") else { continue }
            let resolved = URL(fileURLWithPath: target, relativeTo: URL(fileURLWithPath: directory, isDirectory: true)).standardizedFileURL.path
            let path = "\(devDirectory)/\((resolved as NSString).lastPathComponent)"
            if links[path] == nil || name.hasSuffix("index0") { links[path] = name }
        }
        return links
    }
}
