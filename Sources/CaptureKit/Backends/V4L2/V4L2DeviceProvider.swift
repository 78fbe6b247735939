import Synchronization

/// The V4L2 cameras present now. Rescans when the set of `/dev/video*` nodes changed or the
/// hot-plug monitor says something happened, and keeps the backend of a device that is still
/// there, so the registry keeps handing out the same `CaptureDevice`.
final class V4L2DeviceProvider: DeviceProvider {
    static let shared = V4L2DeviceProvider(discovery: V4L2Discovery())

    let discovery: V4L2Discovery

    private struct Cache {
        var nodeNames: [String]?
        var backends: [V4L2DeviceBackend] = []
        var failures: [String: CaptureError] = [:]
    }
    private let cache = Mutex(Cache())

    init(discovery: V4L2Discovery) {
        self.discovery = discovery
    }

    func backends() -> [any DeviceBackend] { v4l2Backends() }

    /// The cameras now, rescanning when something changed.
    func v4l2Backends() -> [V4L2DeviceBackend] {
        let names = discovery.nodeNames()
        let (cached, previous) = cache.withLock { ($0.nodeNames == names ? $0.backends : nil, $0.backends) }
        if let cached { return cached }
        let (nodes, failures) = discovery.nodes()
        var backends: [V4L2DeviceBackend] = []
        for node in nodes {
            if let kept = previous.first(where: { $0.node == node && $0.isConnected }) {
                backends.append(kept)
            } else if let made = try? V4L2DeviceBackend(node: node, opener: discovery.opener, discovery: discovery) {
                backends.append(made)
            }
        }
        cache.withLock { cache in
            cache.nodeNames = names
            cache.backends = backends
            cache.failures = failures
        }
        return backends
    }

    /// Nodes that exist but could not be opened at the last scan (permissions, busy drivers).
    var openFailures: [String: CaptureError] { cache.withLock { $0.failures } }

    /// Forgets the last scan, so the next one asks every node again (a node's permissions may
    /// have changed after it appeared).
    func invalidate() {
        cache.withLock { $0.nodeNames = nil }
    }
}
