internal import CV4L2

/// What `VIDIOC_QUERYCAP` says about a node.
struct V4L2Capability: Sendable, Equatable {
    var driver: String
    var card: String
    var busInfo: String
    /// The capabilities of this node (`device_caps` when the driver reports them, else `capabilities`).
    var deviceCapabilities: UInt32

    /// The buffer type the node captures with, or nil for a node that does not capture video
    /// (metadata, output-only, radio, VBI).
    var captureBufferType: V4L2BufferType? {
        guard deviceCapabilities & UInt32(V4L2_CAP_STREAMING) != 0 else { return nil }
        if deviceCapabilities & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 { return .capture }
        if deviceCapabilities & UInt32(V4L2_CAP_VIDEO_CAPTURE_MPLANE) != 0 { return .captureMultiplanar }
        return nil
    }
}
