import Dispatch
import Synchronization

/// Takes still photos from a running session (`AVCapturePhotoOutput`): JPEG, PNG or HEIF with
/// EXIF metadata (orientation, capture time, camera), up to the camera's largest size.
///
/// ```swift
/// let photos = CapturePhotoOutput()
/// try session.addOutput(photos)
/// try await session.start()
/// let photo = try await photos.capturePhoto(with: CapturePhotoSettings(fileType: .jpeg))
/// try photo.fileDataRepresentation()!.write(to: URL(fileURLWithPath: "shot.jpg"))
/// ```
///
/// A photo is made from the newest frame the session delivered before the request (zero
/// shutter lag, ``isZeroShutterLagEnabled``), so it costs its encoding only — or, when that
/// frame is stale or the settings ask for it (``CapturePhotoSettings/waitsForNextFrame``), from
/// the next frame, at most one frame interval later; it needs no restart, and data outputs and
/// a movie recording keep running meanwhile. Encoding runs on threads of the output's own, two
/// at once on a machine with two cores or more, so a burst of requests encodes on both. Requests
/// may overlap: each is reported in the order it was made, and every request made while the
/// same frame was awaited gets that frame.
///
/// When ``CapturePhotoSettings/maxPhotoDimensions`` asks for more pixels than the camera
/// streams, and the camera has a larger format within that size, the camera switches to it for
/// the shot and back (the photo then takes a few frame intervals). The switch is skipped —
/// the photo comes at the streaming size — while an output that cannot take a change of frame
/// size (a movie file output) records from the same camera.
public final class CapturePhotoOutput: CaptureOutput, @unchecked Sendable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    let engine = PhotoCaptureEngine(threadName: "CaptureKit.photoOutput", noun: "photo")
    private let ceiling = Mutex<PhotoDimensions?>(nil)
    let qualityCeiling = Mutex<QualityPrioritization>(.balanced)
    /// Where delegates registered without a queue are called: one serial queue, so the calls of
    /// successive requests keep their order.
    private let callbackQueue = DispatchQueue(label: "CaptureKit.photoOutput.delegate")

    /// A photo output; add it to a session with a camera input.
    public override init() {
        super.init()
        engine.zeroShutterLag.store(true, ordering: .relaxed)
    }

    /// How many photos are encoded at once: two on a machine with two cores or more, one
    /// otherwise. For benchmarks that compare a burst on one core and on two.
    package var maximumConcurrentEncodes: Int {
        get { engine.maximumEncoders }
        set { engine.maximumEncoders = newValue }
    }

    // MARK: Capabilities

    /// The file types photos can be written in here (`availablePhotoFileTypes`): JPEG and PNG
    /// always, HEIF when libheif has an HEVC encoder. Asking for another one fails the request
    /// with `.unsupportedFormat`. Raw photos have their own list, ``availableRawPhotoFileTypes``.
    public var availablePhotoFileTypes: [PhotoFileType] { PhotoFileType.allCases.filter { !$0.isRaw && $0.isEncodable } }

    /// The Bayer formats a raw photo can be taken in (`availableRawPhotoPixelFormatTypes`): the
    /// camera's active format when it is a raw Bayer format (``PixelFormat/isBayer``) and
    /// libtiff is installed, else none. To take raw photos, make a Bayer format the camera's
    /// ``CaptureDevice/activeFormat``: the other outputs get its frames demosaiced.
    public var availableRawPhotoPixelFormatTypes: [PixelFormat] {
        // libtiff is opened only for a camera that streams raw samples.
        guard let format = connection(with: .video)?.device?.activeFormat.pixelFormat, format.isBayer,
              PhotoFileType.dng.isEncodable else { return [] }
        return [format]
    }

    /// The file types raw photos can be written in (`availableRawPhotoFileTypes`): DNG when
    /// ``availableRawPhotoPixelFormatTypes`` has a format, else none.
    public var availableRawPhotoFileTypes: [PhotoFileType] { availableRawPhotoPixelFormatTypes.isEmpty ? [] : [.dng] }

    /// The flash modes the connected camera supports (`supportedFlashModes`): `[.off]`, as no
    /// backend fires a flash for a photo yet (a camera's flash LED is its torch,
    /// ``CaptureDevice/setTorchMode(_:)``). Another mode fails the request with `.invalidArgument`.
    public var supportedFlashModes: [CaptureDevice.FlashMode] {
        connection(with: .video)?.device?.supportedPhotoFlashModes ?? [.off]
    }

    /// Every frame size the connected camera has, smallest first: the sizes a photo can be
    /// taken at without scaling (`supportedMaxPhotoDimensions`).
    public var supportedMaxPhotoDimensions: [PhotoDimensions] {
        guard let device = connection(with: .video)?.device else { return [] }
        let sizes = Set(device.formats.filter { $0.mediaType == .video }.map { PhotoDimensions(width: $0.width, height: $0.height) })
        return sizes.sorted { ($0.pixelCount, $0.width) < ($1.pixelCount, $1.width) }
    }

    /// The largest ``CapturePhotoSettings/maxPhotoDimensions`` a request may ask for; nil (the
    /// default) allows up to the camera's largest format. A request beyond it fails with
    /// `.invalidArgument`. Setting ``VideoDimensions/zero`` is setting nil.
    public var maxPhotoDimensions: PhotoDimensions? {
        get { ceiling.withLock { $0 } }
        set { ceiling.withLock { $0 = newValue == .zero ? nil : newValue } }
    }

    /// Photo requests made and not yet finished.
    public var inFlightCaptureCount: Int { engine.inFlightCount }

    // MARK: Capturing

    /// Takes a photo (`capturePhoto(with:delegate:)`). `delegate` is called on `queue` (on a
    /// serial queue of the output's own when nil) with willBeginCapture, willCapturePhoto,
    /// didCapturePhoto, didFinishProcessingPhoto (once per photo: twice for a raw photo with a
    /// processed one, the raw one first) and didFinishCapture, once each and in order —
    /// also when the request fails: a stopped session, an output in no session, an unavailable
    /// file type or flash mode, or reused settings then arrive as the error of the last two.
    public func capturePhoto(with settings: CapturePhotoSettings, delegate: any CapturePhotoCaptureDelegate, queue: DispatchQueue? = nil) {
        engine.submit(settings, sink: .delegate(delegate, queue ?? callbackQueue, self), owner: self,
                      fileTypes: availablePhotoFileTypes + [.dng], ceiling: maxPhotoDimensions)
    }

    /// Takes a photo and returns it once it is encoded: the async form of
    /// ``capturePhoto(with:delegate:queue:)``. Throws what the delegate would receive as error,
    /// and `.invalidArgument` for settings that ask for two photos (a raw photo with a
    /// processed one: ``capturePhotos(with:)`` returns both).
    public func capturePhoto(with settings: CapturePhotoSettings = CapturePhotoSettings()) async throws(CaptureError) -> CapturePhoto {
        guard settings.processedFileType == nil else {
            throw .invalidArgument("settings with a processed file type make two photos: take them with capturePhotos(with:)")
        }
        guard let photo = try await capturePhotos(with: settings).first else { throw .internalError("a photo request returned no photo") }
        return photo
    }

    /// Takes every photo `settings` ask for — one, or a raw photo and then a processed one
    /// (``CapturePhotoSettings/init(rawPixelFormat:processedFileType:)``) from the same frame —
    /// and returns them once encoded. Throws the first error the delegate would receive.
    public func capturePhotos(with settings: CapturePhotoSettings) async throws(CaptureError) -> [CapturePhoto] {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<[CapturePhoto], CaptureError>, Never>) in
            engine.submit(settings, sink: .completion { continuation.resume(returning: $0) }, owner: self,
                          fileTypes: availablePhotoFileTypes + [.dng], ceiling: maxPhotoDimensions)
        }
        return try result.get()
    }

    // MARK: Session side

    override var acceptedMediaTypes: Set<MediaType> { [.video] }

    /// Pixels are looked at only while a capture waits for its frame.
    override func wantsPixels(from connection: CaptureConnection) -> Bool { engine.isArmed }

    override func receive(_ sample: SampleBuffer, from connection: CaptureConnection) {
        engine.receive(sample)
    }

    override func attach(to session: CaptureSession?) {
        super.attach(to: session)
        if session == nil { engine.outputWasRemoved() }
    }

    override func sessionDidStopRunning() { engine.sessionDidStop() }

    override func sessionWasInterrupted(_ reason: CaptureSession.InterruptionReason) { engine.cameraWasLost() }
}
