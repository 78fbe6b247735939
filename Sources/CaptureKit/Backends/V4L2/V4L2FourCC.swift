import Foundation

/// A V4L2 pixel format code: four ASCII characters packed little-endian, as the kernel's
/// `v4l2_fourcc()` macro builds them (`"YUYV"`, `"MJPG"`).
struct V4L2FourCC: Sendable, Hashable, CustomStringConvertible {
    let rawValue: UInt32

    init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The code of four ASCII characters.
    init(_ text: StaticString) {
        var value: UInt32 = 0
        text.withUTF8Buffer { bytes in
            for (index, byte) in bytes.prefix(4).enumerated() { value |= UInt32(byte) << (8 * UInt32(index)) }
        }
        rawValue = value
    }

    var description: String {
        String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (8 * UInt32($0))) }, as: UTF8.self)
            .trimmingCharacters(in: .whitespaces)
    }

    static let yuyv = V4L2FourCC("YUYV")
    static let uyvy = V4L2FourCC("UYVY")
    static let nv12 = V4L2FourCC("NV12")
    static let nv21 = V4L2FourCC("NV21")
    static let yu12 = V4L2FourCC("YU12")
    static let rgb24 = V4L2FourCC("RGB3")
    static let bgr24 = V4L2FourCC("BGR3")
    static let grey = V4L2FourCC("GREY")
    static let mjpeg = V4L2FourCC("MJPG")
    static let jpeg = V4L2FourCC("JPEG")
    /// Raw Bayer codes: 8 bits, and 10, 12 and 16 bits unpacked in 16-bit words
    /// (`V4L2_PIX_FMT_SBGGR8` … `V4L2_PIX_FMT_SRGGB16`; not the packed `pBAA`-style codes).
    static let bayer: [(code: V4L2FourCC, format: PixelFormat)] = [
        (V4L2FourCC("BA81"), .bayerBGGR8), (V4L2FourCC("GBRG"), .bayerGBRG8), (V4L2FourCC("GRBG"), .bayerGRBG8),
        (V4L2FourCC("RGGB"), .bayerRGGB8),
        (V4L2FourCC("BG10"), .bayerBGGR10), (V4L2FourCC("GB10"), .bayerGBRG10), (V4L2FourCC("BA10"), .bayerGRBG10),
        (V4L2FourCC("RG10"), .bayerRGGB10),
        (V4L2FourCC("BG12"), .bayerBGGR12), (V4L2FourCC("GB12"), .bayerGBRG12), (V4L2FourCC("BA12"), .bayerGRBG12),
        (V4L2FourCC("RG12"), .bayerRGGB12),
        (V4L2FourCC("BYR2"), .bayerBGGR16), (V4L2FourCC("GB16"), .bayerGBRG16), (V4L2FourCC("GR16"), .bayerGRBG16),
        (V4L2FourCC("RG16"), .bayerRGGB16),
    ]
    /// Raw Bayer codes packed as MIPI CSI-2 carries them (`V4L2_PIX_FMT_SBGGR10P` `pBAA` …
    /// `V4L2_PIX_FMT_SRGGB12P` `pRCC`; see ``CSI2Packing``): what the raw modes of embedded
    /// boards' sensors deliver. Their frames are unpacked into the 10- and 12-bit formats.
    static let packedBayer: [(code: V4L2FourCC, format: PixelFormat)] = [
        (V4L2FourCC("pBAA"), .bayerBGGR10), (V4L2FourCC("pGAA"), .bayerGBRG10), (V4L2FourCC("pgAA"), .bayerGRBG10),
        (V4L2FourCC("pRAA"), .bayerRGGB10),
        (V4L2FourCC("pBCC"), .bayerBGGR12), (V4L2FourCC("pGCC"), .bayerGBRG12), (V4L2FourCC("pgCC"), .bayerGRBG12),
        (V4L2FourCC("pRCC"), .bayerRGGB12),
    ]

    /// The layout frames of this code are delivered in: the code's own layout, or RGB for
    /// MJPEG (decoded); nil for codes CaptureKit does not read.
    var pixelFormat: PixelFormat? {
        switch self {
        case .yuyv: return .yuyv422
        case .uyvy: return .uyvy422
        case .nv12: return .nv12
        case .nv21: return .nv21
        case .yu12: return .yuv420p
        case .rgb24: return .rgb24
        case .bgr24: return .bgr24
        case .grey: return .gray8
        case .mjpeg, .jpeg: return .rgb24
        default: return (Self.bayer + Self.packedBayer).first { $0.code == self }?.format
        }
    }

    /// The bits of each sample of a CSI-2 packed Bayer code (10 or 12), nil for other codes.
    var packedBayerBits: Int? {
        Self.packedBayer.first { $0.code == self }?.format.bayerBitDepth
    }

    /// Whether frames of this code are JPEG images.
    var isJPEG: Bool { self == .mjpeg || self == .jpeg }
}

extension V4L2FourCC {
    /// The code spelled by up to four ASCII characters (`"YUYV"`), padded with spaces.
    init?(string: String) {
        let bytes = Array(string.utf8)
        guard (1...4).contains(bytes.count), bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        let padded = bytes + Array(repeating: UInt8(ascii: " "), count: 4 - bytes.count)
        rawValue = padded.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }
}
