/// The file formats a photo can be written in (`AVVideoCodecType` / `AVFileType` for photos).
public enum PhotoFileType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// JPEG (JFIF with an EXIF block), by libjpeg-turbo. The default.
    case jpeg
    /// PNG (lossless, 8-bit RGB, EXIF in an `eXIf` chunk), by FFmpeg's PNG encoder.
    case png
    /// HEIF with HEVC (`.heic`), by libheif and x265, where the machine has them.
    case heif

    /// The usual file name extension.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .heif: return "heic"
        }
    }

    /// The MIME type.
    public var mimeType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        case .heif: return "image/heic"
        }
    }

    /// The raw value: `jpeg`, `png` or `heif`.
    public var description: String { rawValue }

    /// Whether this machine can write the format (libheif's HEVC encoder for HEIF).
    var isEncodable: Bool {
        switch self {
        case .jpeg: return true
        case .png: return PNGEncoder.isAvailable
        case .heif: return HEIFEncoder.isAvailable
        }
    }
}
