import Dispatch
import Foundation
import Synchronization

/// Takes JPEG stills with the shape of the older `AVCaptureStillImageOutput`, so code written
/// for it (like the "capture still image" flow of many iOS apps) ports as it is. It runs on the
/// same machinery as ``CapturePhotoOutput``: next-frame latency, EXIF orientation from the
/// connection, encoding off the device thread.
///
/// ```swift
/// let stills = CaptureStillImageOutput()
/// stills.outputSettings = .init(codec: .jpeg)
/// try session.addOutput(stills)
/// let connection = stills.connection(with: .video)!
/// connection.videoOrientation = .portrait
/// stills.captureStillImageAsynchronously(from: connection) { buffer, error in
///     guard let buffer else { return print(error!) }
///     let jpeg = CaptureStillImageOutput.jpegStillImageDataRepresentation(buffer)
/// }
/// ```
public final class CaptureStillImageOutput: CaptureOutput, @unchecked Sendable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    /// What stills are encoded as (the `outputSettings` dictionary: `AVVideoCodecKey`,
    /// `AVVideoQualityKey`).
    public struct OutputSettings: Sendable, Hashable {
        /// The codec; only `.jpeg` is available (``availableImageDataCodecTypes``).
        public var codec: PhotoFileType
        /// JPEG quality in 0...1.
        public var quality: Double

        /// Settings for `codec` (JPEG by default) at `quality`.
        public init(codec: PhotoFileType = .jpeg, quality: Double = 0.9) {
            self.codec = codec
            self.quality = quality
        }
    }

    let engine = PhotoCaptureEngine(threadName: "CaptureKit.stillImageOutput", noun: "still")
    private let settings = Mutex(OutputSettings())
    private let callbackQueue = DispatchQueue(label: "CaptureKit.stillImageOutput.completion")

    /// A still image output producing JPEG.
    public override init() {
        super.init()
    }

    /// The codec and quality of the stills (`outputSettings`).
    public var outputSettings: OutputSettings {
        get { settings.withLock { $0 } }
        set { settings.withLock { $0 = newValue } }
    }

    /// The codecs ``outputSettings`` may name (`availableImageDataCodecTypes`): JPEG. Another
    /// one fails the capture with `.unsupportedFormat`.
    public var availableImageDataCodecTypes: [PhotoFileType] { [.jpeg] }

    /// Whether a still is being taken (`isCapturingStillImage`).
    public var isCapturingStillImage: Bool { engine.inFlightCount > 0 }

    /// Takes a still from the next frame of `connection` (which must be this output's) and calls
    /// `completionHandler` on a serial queue of the output's own with a sample buffer holding
    /// the frame — pass it to ``jpegStillImageDataRepresentation(_:)`` for the JPEG — or nil and
    /// the error (`captureStillImageAsynchronously(from:completionHandler:)`).
    public func captureStillImageAsynchronously(from connection: CaptureConnection,
                                                completionHandler: @escaping @Sendable (SampleBuffer?, CaptureError?) -> Void) {
        let queue = callbackQueue
        let finish: @Sendable (Result<[CapturePhoto], CaptureError>) -> Void = { result in
            switch result.map(\.first) {
            case .success(let photo):
                guard let photo, let source = photo.source, let frame = photo.pixelBuffer, let jpeg = photo.fileDataRepresentation() else {
                    queue.async { completionHandler(nil, .internalError("a still was captured without a frame or JPEG data")) }
                    return
                }
                // The JPEG travels in the buffer, as a CMSampleBuffer of a still carries its JPEG.
                let storage: MediaStorage
                do throws(CaptureError) {
                    storage = try MediaStorage.allocate(byteCount: jpeg.count)
                } catch {
                    queue.async { completionHandler(nil, error) }
                    return
                }
                jpeg.copyBytes(to: storage.bytes.assumingMemoryBound(to: UInt8.self), count: jpeg.count)
                let buffer = SampleBuffer(media: .video(frame), presentationTimeStamp: source.presentationTimeStamp,
                                          duration: source.duration, sequenceNumber: source.sequenceNumber,
                                          compressedFrame: CompressedFrame(codec: .jpeg, storage: storage, byteCount: jpeg.count))
                queue.async { completionHandler(buffer, nil) }
            case .failure(let error):
                queue.async { completionHandler(nil, error) }
            }
        }
        guard connection.output === self else {
            let refused = CapturePhotoSettings(fileType: outputSettings.codec)
            let error = CaptureError.invalidArgument("the connection passed to captureStillImageAsynchronously(from:) is not this output's; use connection(with: .video)")
            engine.submitRefused(refused, error: error, sink: .completion(finish))
            return
        }
        let current = outputSettings
        var request = CapturePhotoSettings(fileType: current.codec)
        request.quality = current.quality
        engine.submit(request, sink: .completion(finish), owner: self, fileTypes: availableImageDataCodecTypes, ceiling: nil)
    }

    /// The async form of ``captureStillImageAsynchronously(from:completionHandler:)``.
    public func captureStillImage(from connection: CaptureConnection) async throws(CaptureError) -> SampleBuffer {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<SampleBuffer, CaptureError>, Never>) in
            captureStillImageAsynchronously(from: connection) { buffer, error in
                continuation.resume(returning: buffer.map { .success($0) } ?? .failure(error ?? .internalError("no still and no error")))
            }
        }
        return try result.get()
    }

    /// The JPEG file of a still (Objective-C's `jpegStillImageNSDataRepresentation:`): the bytes the
    /// buffer carries — encoded at capture, with EXIF, for a buffer this output delivered; as
    /// the camera coded them for a frame of a Motion-JPEG camera — else the frame encoded now
    /// (quality 0.9, no EXIF). Nil for audio. `CaptureImage(sampleBuffer:)` decodes the still
    /// upright, where iOS code wrapped this data in a `UIImage`.
    public static func jpegStillImageDataRepresentation(_ sampleBuffer: SampleBuffer) -> Data? {
        if let compressed = sampleBuffer.compressedFrame, compressed.codec == .jpeg { return Data(compressed.bytes) }
        guard let frame = sampleBuffer.pixelBuffer else { return nil }
        return try? JPEGEncoder.encode(frame, quality: 90, metadata: nil)
    }

    /// ``jpegStillImageDataRepresentation(_:)`` under the name Swift code written for
    /// AVFoundation calls (`AVCaptureStillImageOutput.jpegStillImageNSDataRepresentation(_:)`).
    public static func jpegStillImageNSDataRepresentation(_ sampleBuffer: SampleBuffer) -> Data? {
        jpegStillImageDataRepresentation(sampleBuffer)
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
