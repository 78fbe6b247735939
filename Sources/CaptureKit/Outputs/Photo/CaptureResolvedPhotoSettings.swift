/// What a photo request turned into once the output resolved it against the device and the
/// connection (`AVCaptureResolvedPhotoSettings`). Every delegate call carries it.
public struct CaptureResolvedPhotoSettings: Sendable, Hashable {
    /// The ``CapturePhotoSettings/uniqueID`` of the request.
    public let uniqueID: Int64
    /// The file format: in a raw and processed request, each photo's own (DNG for the raw one).
    public let fileType: PhotoFileType
    /// The compression quality used (0...1).
    public let quality: Double
    /// The size of the stored picture (after scaling and any pixel turn); zero when the request
    /// failed before it was resolved.
    public let photoDimensions: PhotoDimensions
    /// The flash mode in effect.
    public let flashMode: CaptureDevice.FlashMode
    /// The EXIF orientation written to the file: the connection's rotation and mirroring, or
    /// `.up` when ``appliesOrientationToPixels``.
    public let orientation: EXIFOrientation
    /// Whether the pixels were turned to the connection's orientation.
    public let appliesOrientationToPixels: Bool
    /// Whether the device is switched to a larger format for this shot (and back after it).
    public let switchesDeviceFormat: Bool
    /// The size of the preview image (``CapturePhoto/previewPixelBuffer``); zero when the
    /// request asked for none (`previewDimensions`).
    public let previewDimensions: PhotoDimensions
    /// The preview image's pixel format, when one was asked for.
    let previewPixelFormat: PixelFormat?

    /// The size of a Live Photo's movie (`livePhotoMovieDimensions`): always zero, since no
    /// Linux camera takes Live Photos.
    public var livePhotoMovieDimensions: PhotoDimensions { .zero }

    /// Whether the flash fires (`isFlashEnabled`).
    public var isFlashEnabled: Bool { flashMode == .on }

    /// Photos the request delivers (`expectedPhotoCount`): two for a raw photo with a processed
    /// one (``CapturePhotoSettings/processedFileType``), else one.
    public let expectedPhotoCount: Int

    init(uniqueID: Int64, fileType: PhotoFileType, quality: Double, photoDimensions: PhotoDimensions,
         flashMode: CaptureDevice.FlashMode, orientation: EXIFOrientation, appliesOrientationToPixels: Bool,
         switchesDeviceFormat: Bool, previewDimensions: PhotoDimensions = .zero, previewPixelFormat: PixelFormat? = nil,
         expectedPhotoCount: Int = 1) {
        self.uniqueID = uniqueID
        self.fileType = fileType
        self.quality = quality
        self.photoDimensions = photoDimensions
        self.flashMode = flashMode
        self.orientation = orientation
        self.appliesOrientationToPixels = appliesOrientationToPixels
        self.switchesDeviceFormat = switchesDeviceFormat
        self.previewDimensions = previewDimensions
        self.previewPixelFormat = previewPixelFormat
        self.expectedPhotoCount = expectedPhotoCount
    }

    /// What is known of a request refused before resolution.
    init(unresolved settings: CapturePhotoSettings) {
        self.init(uniqueID: settings.uniqueID, fileType: settings.fileType, quality: settings.quality,
                  photoDimensions: PhotoDimensions(width: 0, height: 0), flashMode: settings.flashMode,
                  orientation: .up, appliesOrientationToPixels: settings.appliesOrientationToPixels, switchesDeviceFormat: false)
    }

    /// The same settings for one photo of the request: the dimensions it really has, in its
    /// file type.
    func with(photoDimensions: PhotoDimensions, fileType: PhotoFileType? = nil) -> CaptureResolvedPhotoSettings {
        CaptureResolvedPhotoSettings(uniqueID: uniqueID, fileType: fileType ?? self.fileType, quality: quality, photoDimensions: photoDimensions,
                                     flashMode: flashMode, orientation: orientation,
                                     appliesOrientationToPixels: appliesOrientationToPixels, switchesDeviceFormat: switchesDeviceFormat,
                                     previewDimensions: previewDimensions, previewPixelFormat: previewPixelFormat,
                                     expectedPhotoCount: expectedPhotoCount)
    }
}
