internal import CV4L2

/// What `VIDIOC_QUERYCAP` says about a node. Wraps struct v4l2_capability.
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

    /// Whether the node is one stage of a media-controller pipeline (`V4L2_CAP_IO_MC`): it
    /// captures only once the pipeline's links and formats are configured (libcamera does).
    var isMediaControllerCentric: Bool { deviceCapabilities & 0x2000_0000 != 0 }
}

/// Whether a capture node uses the single-planar or the multi-planar buffer API. Wraps the
/// capture cases of enum v4l2_buf_type.
enum V4L2BufferType: Sendable, Hashable {
    case capture
    case captureMultiplanar

    /// `V4L2_BUF_TYPE_VIDEO_CAPTURE` or `V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE`.
    var rawValue: UInt32 {
        switch self {
        case .capture: return V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        case .captureMultiplanar: return V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue
        }
    }
}
