internal import CLibCamera

/// libcamera's pixel formats, named by DRM FourCC (`libcamera::formats`), and the CaptureKit
/// layouts they are. DRM names packed RGB by its little-endian word, so `RGB888` is B, G, R in
/// memory (V4L2's `BGR3`).
enum LibCameraFormats {
    private static func fourCC(_ text: StaticString) -> UInt32 {
        text.withUTF8Buffer { bytes in bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) } }
    }

    /// Each DRM format CaptureKit can take as it is, best first.
    static let known: [(drm: UInt32, format: PixelFormat)] = [
        (fourCC("NV12"), .nv12), (fourCC("YUYV"), .yuyv422), (fourCC("YU12"), .yuv420p), (fourCC("NV21"), .nv21),
        (fourCC("UYVY"), .uyvy422), (fourCC("YU16"), .yuv422p), (fourCC("RG24"), .bgr24), (fourCC("BG24"), .rgb24),
        (fourCC("XR24"), .bgra), (fourCC("AR24"), .bgra), (fourCC("XB24"), .rgba), (fourCC("AB24"), .rgba), (fourCC("R8  "), .gray8),
        // Raw Bayer (the raw role's sensor samples), unpacked: libcamera's SBGGR8 … SRGGB16.
        (fourCC("BA81"), .bayerBGGR8), (fourCC("GBRG"), .bayerGBRG8), (fourCC("GRBG"), .bayerGRBG8), (fourCC("RGGB"), .bayerRGGB8),
        (fourCC("BG10"), .bayerBGGR10), (fourCC("GB10"), .bayerGBRG10), (fourCC("BA10"), .bayerGRBG10), (fourCC("RG10"), .bayerRGGB10),
        (fourCC("BG12"), .bayerBGGR12), (fourCC("GB12"), .bayerGBRG12), (fourCC("BA12"), .bayerGRBG12), (fourCC("RG12"), .bayerRGGB12),
        (fourCC("BYR2"), .bayerBGGR16), (fourCC("GB16"), .bayerGBRG16), (fourCC("GR16"), .bayerGRBG16), (fourCC("RGB6"), .bayerRGGB16),
    ]

    /// The layout of DRM format `drm`, nil for formats CaptureKit does not take (MJPEG, CSI-2
    /// packed raw, which the shim reports as 0).
    static func pixelFormat(drm: UInt32) -> PixelFormat? {
        known.first { $0.drm == drm }?.format
    }

    /// The DRM formats that are `format`, in preference order.
    static func drmFormats(for format: PixelFormat) -> [UInt32] {
        known.filter { $0.format == format }.map(\.drm)
    }

    /// The (format, size) pairs stream role `role` of camera `id` offers.
    static func offered(_ id: String, role: Int32) -> [ck_lc_format] {
        var capacity = 64
        while true {
            var formats = [ck_lc_format](repeating: ck_lc_format(), count: capacity)
            let count = Int(LibCamera.api.formats(id, role, &formats, Int32(capacity)))
            if count < 0 { return [] }
            if count <= capacity { return Array(formats.prefix(count)) }
            capacity = count
        }
    }

    /// The device formats of stream role `role`: each layout CaptureKit takes at each size, as
    /// the camera validates them, largest first, at the camera's frame rate range (`FrameDurationLimits`) or, for a camera without
    /// one, a nominal 30 frames per second.
    static func deviceFormats(_ id: String, role: Int32) -> [CaptureDevice.Format] {
        var minimum: Int64 = 0, maximum: Int64 = 0
        let range: CaptureDevice.FrameRateRange
        if LibCamera.api.frame_duration_limits(id, &minimum, &maximum) == 0, minimum > 0, maximum >= minimum {
            range = CaptureDevice.FrameRateRange(minFrameDuration: MediaTime(value: minimum, timescale: 1_000_000),
                                                 maxFrameDuration: MediaTime(value: maximum, timescale: 1_000_000))
        } else {
            range = CaptureDevice.FrameRateRange(fps: 30)
        }
        var seen = Set<String>()
        var formats: [CaptureDevice.Format] = []
        // A pipeline handler may list what its validation then changes (vimc's lists RGB888
        // at 320x240 and configures 318x240): each pair is validated, and what the camera
        // would deliver is the format.
        for offered in offered(id, role: role) {
            var result = ck_lc_configured()
            guard LibCamera.api.validate(id, role, offered.fourcc, offered.width, offered.height, &result) >= 0,
                  let format = pixelFormat(drm: result.fourcc), result.width > 0, result.height > 0,
                  seen.insert("\(format) \(result.width)x\(result.height)").inserted else { continue }
            formats.append(CaptureDevice.Format(pixelFormat: format, width: Int(result.width), height: Int(result.height), frameRateRanges: [range]))
        }
        return formats.sorted { ($0.width * $0.height, preference($0)) > ($1.width * $1.height, preference($1)) }
    }

    private static func preference(_ format: CaptureDevice.Format) -> Int {
        -(known.firstIndex { $0.format == format.pixelFormat } ?? known.count)
    }
}
