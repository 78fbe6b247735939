/// The kind of media a device, port or connection carries (`AVMediaType`).
public enum MediaType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Pictures.
    case video
    /// Sound.
    case audio

    public var description: String { rawValue }
}
