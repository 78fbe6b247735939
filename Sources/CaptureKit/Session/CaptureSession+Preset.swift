extension CaptureSession {
    /// A quality level the session picks the device format for (`AVCaptureSession.Preset`).
    public enum Preset: String, Sendable, Hashable, CaseIterable {
        /// The largest frames the camera has, whatever their frame rate (for stills).
        case photo
        /// The largest frames the camera can deliver at 30 fps (or its best rate).
        case high
        /// Frames at most 640 pixels wide, the largest such.
        case medium
        /// The smallest frames the camera has.
        case low
        /// Exactly 352×288.
        case cif352x288
        /// Exactly 640×480.
        case vga640x480
        /// Exactly 1280×720.
        case hd1280x720
        /// Exactly 1920×1080.
        case hd1920x1080
        /// Exactly 3840×2160.
        case hd4K3840x2160
        /// Leave the device's `activeFormat` alone: you choose it.
        case inputPriority

        /// The exact frame size a size preset asks for.
        var exactSize: (width: Int, height: Int)? {
            switch self {
            case .cif352x288: return (352, 288)
            case .vga640x480: return (640, 480)
            case .hd1280x720: return (1280, 720)
            case .hd1920x1080: return (1920, 1080)
            case .hd4K3840x2160: return (3840, 2160)
            case .photo, .high, .medium, .low, .inputPriority: return nil
            }
        }
    }

    /// The format and frame duration `preset` picks among `formats`, or nil when no format fits.
    ///
    /// Among formats of the chosen size, uncompressed layouts cheap to encode come first
    /// (NV12, I420, then packed 4:2:2), and formats that reach 30 fps beat those that do not.
    /// Raw Bayer formats count only on a camera that offers nothing else: they are for raw
    /// photos, chosen as the active format on purpose.
    static func bestFormat(for preset: Preset, among formats: [CaptureDevice.Format]) -> (CaptureDevice.Format, MediaTime)? {
        let all = formats.filter { $0.mediaType == .video }
        let processed = all.filter { $0.pixelFormat?.isBayer != true }
        let video = processed.isEmpty ? all : processed
        guard preset != .inputPriority, !video.isEmpty else { return nil }
        let thirty = MediaTime(value: 1, timescale: 30)
        func reaches30(_ format: CaptureDevice.Format) -> Bool { format.minFrameDuration <= thirty }
        func pixels(_ format: CaptureDevice.Format) -> Int { format.width * format.height }

        let candidates: [CaptureDevice.Format]
        if let size = preset.exactSize {
            candidates = video.filter { $0.width == size.width && $0.height == size.height }
        } else {
            switch preset {
            case .photo:
                let most = video.map(pixels).max() ?? 0
                candidates = video.filter { pixels($0) == most }
            case .high:
                let pool = video.contains(where: reaches30) ? video.filter(reaches30) : video
                let most = pool.map(pixels).max() ?? 0
                candidates = pool.filter { pixels($0) == most }
            case .medium:
                let small = video.filter { $0.width <= 640 }
                let pool = small.isEmpty ? video : small
                let target = small.isEmpty ? pool.map(pixels).min() ?? 0 : pool.map(pixels).max() ?? 0
                candidates = pool.filter { pixels($0) == target }
            default:
                let least = video.map(pixels).min() ?? 0
                candidates = video.filter { pixels($0) == least }
            }
        }
        let best = candidates.min { a, b in
            if reaches30(a) != reaches30(b) { return reaches30(a) }
            return rank(a.pixelFormat) < rank(b.pixelFormat)
        }
        return best.map { ($0, CaptureDevice.defaultFrameDuration(for: $0)) }
    }

    private static func rank(_ format: PixelFormat?) -> Int {
        let order: [PixelFormat] = [.nv12, .yuv420p, .nv21, .yuyv422, .uyvy422, .yuv422p, .gray8, .bgra, .rgba, .rgb24, .bgr24]
        return format.flatMap { order.firstIndex(of: $0) } ?? order.count
    }
}
