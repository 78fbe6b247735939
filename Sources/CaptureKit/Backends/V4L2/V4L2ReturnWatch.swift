import Synchronization

/// Watches for a lost camera to come back: the node with the same unique ID (by-id name, or bus
/// position and card), wherever it reappears. Cheap while nothing changes: the nodes are asked
/// what they are (one open and VIDIOC_QUERYCAP each) only when the set of `/dev/video*` names
/// changed, or when the old node is still there (drivers such as vivid keep their node through a
/// "disconnect" and answer again once every handle of the old stream is closed).
final class V4L2ReturnWatch: Sendable {
    let uniqueID: String
    let lastPath: String
    let discovery: V4L2Discovery
    /// Used by the stream thread only; a lock only to be Sendable.
    private let lastNames = Mutex<[String]?>(nil)

    init(uniqueID: String, lastPath: String, discovery: V4L2Discovery) {
        self.uniqueID = uniqueID
        self.lastPath = lastPath
        self.discovery = discovery
    }

    /// The camera's node if it is back, nil if not (yet).
    func returnedNode() -> V4L2Node? {
        let names = discovery.nodeNames()
        let changed = lastNames.withLock { last in
            defer { last = names }
            return names != last
        }
        guard changed || discovery.opener.nodeExists(lastPath) else { return nil }
        return discovery.nodes().nodes.first { $0.uniqueID == uniqueID }
    }
}
