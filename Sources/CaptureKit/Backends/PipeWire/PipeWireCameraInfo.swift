internal import CPipeWire
import Foundation

/// A PipeWire Video/Source node as the registry lists it, with its formats in CaptureKit's
/// terms and in the shim's (to ask for one again when streaming).
struct PipeWireCameraInfo: Sendable {
    var id: UInt32
    var serial: UInt64
    var name: String
    var description: String
    var role: String
    /// "v4l2", "libcamera", or empty for a node no device backs (a test source).
    var deviceAPI: String
    /// Where the node's device is, as its monitor names it ("v4l2:/dev/video0").
    var objectPath: String
    /// Whether a stream may keep the node's frames by reference: a node the daemon runs, whose
    /// buffers come back every graph cycle, not another client's stream (see the shim).
    var lendsBuffers: Bool
    /// The formats offered, best first within each size, with the shim's format for each.
    var formats: [(format: CaptureDevice.Format, request: ck_pw_format)]

    /// The sizes a format that takes a range of sizes is offered at: the usual camera sizes
    /// inside the range, and its default.
    static let ladder = [VideoDimensions(width: 320, height: 240), VideoDimensions(width: 640, height: 480),
                         VideoDimensions(width: 1280, height: 720), VideoDimensions(width: 1920, height: 1080)]
    /// The frame rates a format that takes a range of rates is offered at, inside the range.
    static let rates: [Int32] = [15, 24, 25, 30, 60]

    init(_ camera: ck_pw_camera) {
        id = camera.id
        serial = camera.serial
        name = Self.string(camera.name)
        description = Self.string(camera.description)
        role = Self.string(camera.media_role)
        deviceAPI = Self.string(camera.device_api)
        objectPath = Self.string(camera.object_path)
        lendsBuffers = camera.lends_buffers != 0
        var entries: [(format: CaptureDevice.Format, request: ck_pw_format)] = []
        withUnsafeBytes(of: camera.formats) { raw in
            let formats = raw.bindMemory(to: ck_pw_format.self)
            for index in 0..<Int(min(camera.format_count, UInt32(formats.count))) {
                entries += Self.expand(formats[index])
            }
        }
        var seen = Set<CaptureDevice.Format>()
        formats = entries.filter { seen.insert($0.format).inserted }
    }

    /// The formats one enumerated entry stands for: each size (of the ladder, for a range) with
    /// each of its rates, for raw layouts CaptureKit knows and Motion JPEG (decoded to RGB).
    private static func expand(_ entry: ck_pw_format) -> [(format: CaptureDevice.Format, request: ck_pw_format)] {
        let pixelFormat: PixelFormat, encoding: CaptureDevice.Format.Encoding
        switch entry.subtype {
        case UInt32(CK_PW_SUBTYPE_RAW):
            guard let layout = Self.pixelFormat(entry.pixels) else { return [] }
            (pixelFormat, encoding) = (layout, .uncompressed)
        case UInt32(CK_PW_SUBTYPE_MJPEG):
            (pixelFormat, encoding) = (.rgb24, .mjpeg)
        default:
            return []  // H.264 nodes are not read
        }
        let sizes: [VideoDimensions]
        if entry.min_width == entry.max_width, entry.min_height == entry.max_height {
            sizes = [VideoDimensions(width: Int(entry.width), height: Int(entry.height))]
        } else {
            let inRange = ladder.filter {
                $0.width >= Int(entry.min_width) && $0.width <= Int(entry.max_width) && $0.height >= Int(entry.min_height) && $0.height <= Int(entry.max_height)
            }
            let preferred = VideoDimensions(width: Int(entry.width), height: Int(entry.height))
            sizes = inRange.contains(preferred) ? inRange : [preferred] + inRange
        }
        var frameRates: [(num: UInt32, den: UInt32)] = []
        withUnsafeBytes(of: entry.rate_num) { nums in
            withUnsafeBytes(of: entry.rate_den) { dens in
                let n = nums.bindMemory(to: UInt32.self), d = dens.bindMemory(to: UInt32.self)
                for index in 0..<Int(min(entry.rate_count, UInt32(n.count))) where n[index] > 0 && d[index] > 0 {
                    frameRates.append((n[index], d[index]))
                }
            }
        }
        if entry.rate_count == 0 {
            let low = entry.rate_min_den > 0 ? Double(entry.rate_min_num) / Double(entry.rate_min_den) : 0
            let high = entry.rate_max_den > 0 ? Double(entry.rate_max_num) / Double(entry.rate_max_den) : 0
            frameRates = rates.filter { Double($0) >= low && Double($0) <= high }.map { (UInt32($0), 1) }
        }
        guard !frameRates.isEmpty else { return [] }
        let ranges = frameRates.sorted { Double($0.num) / Double($0.den) > Double($1.num) / Double($1.den) }.map { rate in
            let duration = MediaTime(value: Int64(rate.den), timescale: Int32(clamping: rate.num))
            return CaptureDevice.FrameRateRange(minFrameDuration: duration, maxFrameDuration: duration)
        }
        return sizes.map { size in
            var request = entry
            request.width = UInt32(size.width)
            request.height = UInt32(size.height)
            return (CaptureDevice.Format(pixelFormat: pixelFormat, width: size.width, height: size.height, frameRateRanges: ranges,
                                         encoding: encoding, fourCC: nil), request)
        }
    }

    /// CaptureKit's layout for one of the shim's, nil for the ones it does not know.
    static func pixelFormat(_ pixels: UInt32) -> PixelFormat? {
        switch Int(pixels) {
        case Int(CK_PW_PIXELS_YUYV): return .yuyv422
        case Int(CK_PW_PIXELS_UYVY): return .uyvy422
        case Int(CK_PW_PIXELS_NV12): return .nv12
        case Int(CK_PW_PIXELS_NV21): return .nv21
        case Int(CK_PW_PIXELS_I420): return .yuv420p
        case Int(CK_PW_PIXELS_Y42B): return .yuv422p
        case Int(CK_PW_PIXELS_GRAY8): return .gray8
        case Int(CK_PW_PIXELS_RGB): return .rgb24
        case Int(CK_PW_PIXELS_BGR): return .bgr24
        case Int(CK_PW_PIXELS_BGRA): return .bgra
        case Int(CK_PW_PIXELS_RGBA): return .rgba
        default: return nil
        }
    }

    private static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
