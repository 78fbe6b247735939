extension CaptureDevice.Format {
    /// A format's media description (`CMFormatDescription`), as
    /// `format.formatDescription.dimensions` reads it (`CMVideoFormatDescriptionGetDimensions`).
    public struct FormatDescription: Sendable, Hashable {
        /// Video or audio.
        public let mediaType: MediaType
        /// The frame size; zero for audio.
        public let dimensions: VideoDimensions
        /// The pixel layout (`mediaSubType`); nil for audio and compressed formats.
        public let mediaSubType: PixelFormat?
    }

    /// The format's description (`formatDescription`).
    public var formatDescription: FormatDescription {
        FormatDescription(mediaType: mediaType, dimensions: mediaType == .video ? VideoDimensions(width: width, height: height) : .zero,
                          mediaSubType: pixelFormat)
    }

    /// The photo sizes this format gives without changing format (`supportedMaxPhotoDimensions`):
    /// its frame size. (A photo output can still switch the camera to a larger format for a
    /// shot: see ``CapturePhotoOutput/supportedMaxPhotoDimensions``.)
    public var supportedMaxPhotoDimensions: [VideoDimensions] {
        mediaType == .video ? [VideoDimensions(width: width, height: height)] : []
    }
}
