/// The file formats a photo can be written in (`AVVideoCodecType` / `AVFileType` for photos).
public enum PhotoFileType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// JPEG (JFIF with an EXIF block), by libjpeg-turbo. The default.
    case jpeg
    /// PNG (lossless, 8-bit RGB, EXIF in an `eXIf` chunk), by FFmpeg's PNG encoder.
    case png
    /// HEIF with HEVC (`.heic`), by libheif and x265, where the machine has them.
    case heif
    /// DNG: the sensor's raw Bayer samples as the camera delivered them, by libtiff, for a
    /// camera streaming a Bayer format (``CapturePhotoOutput/availableRawPhotoFileTypes``).
    case dng

    /// The usual file name extension.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .heif: return "heic"
        case .dng: return "dng"
        }
    }

    /// The MIME type.
    public var mimeType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        case .heif: return "image/heic"
        case .dng: return "image/x-adobe-dng"
        }
    }

    /// The raw value: `jpeg`, `png`, `heif` or `dng`.
    public var description: String { rawValue }

    /// Whether the file holds the sensor's raw samples rather than a picture
    /// (`AVCapturePhoto.isRawPhoto`).
    public var isRaw: Bool { self == .dng }

    /// Whether this machine can write the format (libheif's HEVC encoder for HEIF, libtiff
    /// for DNG).
    var isEncodable: Bool {
        switch self {
        case .jpeg: return true
        case .png: return PNGEncoder.isAvailable
        case .heif: return HEIFEncoder.isAvailable
        case .dng: return DNGEncoder.isAvailable
        }
    }
}
