/// What a sample buffer holds, as `CMFormatDescription`.
public enum FormatDescription: Sendable, Hashable, CustomStringConvertible {
    /// Video frames of this size and layout.
    case video(width: Int, height: Int, pixelFormat: PixelFormat)
    /// Audio in this format.
    case audio(AudioFormat)

    /// The media type described.
    public var mediaType: MediaType {
        switch self {
        case .video: return .video
        case .audio: return .audio
        }
    }

    public var description: String {
        switch self {
        case let .video(width, height, pixelFormat): return "\(width)x\(height) \(pixelFormat)"
        case let .audio(format): return format.description
        }
    }
}
