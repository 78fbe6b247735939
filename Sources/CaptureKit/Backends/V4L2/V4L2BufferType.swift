internal import CV4L2

/// Whether a capture node uses the single-planar or the multi-planar buffer API.
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
