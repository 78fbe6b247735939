import Foundation
import Synchronization

/// Draws two cameras into one picture — picture-in-picture or side by side — and offers the
/// result as a camera of its own, ``device``, that any output records: add
/// `CaptureDeviceInput(device: composition.device)` to a session and connect a movie, stream or
/// data output to it.
///
/// The first connection added is the main camera: its frames set the composition's times
/// (each composed frame carries the main frame's presentation time) and each of them makes one
/// composed frame, with the newest frame of the second camera in its place. Pictures are scaled
/// with libswscale to fit their place with their shape kept; the rest is black. When the main
/// camera goes away, so does ``device`` (its outputs are interrupted and resume with it); when
/// the second goes away its place shows what is beneath — the main picture, or black side by
/// side — until it is back.
///
/// ```swift
/// func recordPictureInPicture(_ main: CaptureDevice, _ inset: CaptureDevice, to url: URL) async throws -> CaptureMovieFileOutput {
///     let session = CaptureMultiCamSession()
///     let composition = try CaptureCompositionOutput(layout: .pictureInPicture(corner: .bottomRight), size: VideoDimensions(width: 1280, height: 720))
///     let movie = CaptureMovieFileOutput()
///     try session.configure {
///         try session.addOutputWithNoConnections(composition)
///         for camera in [main, inset] {
///             let input = try CaptureDeviceInput(device: camera)
///             try session.addInputWithNoConnections(input)
///             try session.addConnection(CaptureConnection(inputPorts: [input.port(for: .video)!], output: composition))
///         }
///         let composed = try CaptureDeviceInput(device: composition.device)
///         try session.addInputWithNoConnections(composed)
///         try session.addOutputWithNoConnections(movie)
///         try session.addConnection(CaptureConnection(inputPorts: [composed.port(for: .video)!], output: movie))
///     }
///     try await session.start()
///     try movie.startRecording(to: url)
///     return movie
/// }
/// ```
public final class CaptureCompositionOutput: CaptureOutput, @unchecked Sendable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    /// Where the cameras go.
    public let layout: CompositionLayout
    /// The composed picture's size.
    public let size: VideoDimensions
    /// The composed picture as a camera (NV12 at ``size``), for a session's input.
    public let device: CaptureDevice

    private struct Place {
        var picture: PixelBuffer
        var rect: PixelRect
    }

    private let backend: CompositionBackend
    private let pool: PixelBufferPool
    private struct Pictures {
        var places: [Int: Place] = [:]
        /// Places whose camera is away: frames of it still on their way are not drawn.
        var away: Set<Int> = []
    }

    private let pictures = Mutex(Pictures())
    private var delivery: DeliveryQueue!

    /// A composition of `size` (even, 64×64 to 7680×4320) offered at `frameRate` (what its
    /// device's format says; the frames come at the main camera's rate). `.invalidArgument`
    /// for other sizes and rates.
    public init(layout: CompositionLayout = .pictureInPicture(), size: VideoDimensions = VideoDimensions(width: 1280, height: 720),
                frameRate: Int32 = 30, name: String = "Composition") throws(CaptureError) {
        guard size.width >= 64, size.height >= 64, size.width <= 7680, size.height <= 4320, size.width % 2 == 0, size.height % 2 == 0 else {
            throw .invalidArgument("a composition must be even-sized, 64x64 to 7680x4320, not \(size.width)x\(size.height)")
        }
        guard frameRate > 0, frameRate <= 240 else { throw .invalidArgument("a composition's frame rate must be 1 to 240, not \(frameRate)") }
        self.layout = layout
        self.size = size
        pool = try PixelBufferPool(width: size.width, height: size.height, pixelFormat: .nv12)
        backend = CompositionBackend(name: name, uniqueID: "composition:\(UUID().uuidString.prefix(8).lowercased())", size: size, frameRate: frameRate)
        device = CaptureDevice(backend: backend)
        super.init()
        // Scaling and drawing happen on the output's thread, never the cameras'; frames that
        // wait (four at most) are dropped when it falls behind, and the main camera's are
        // reported as the composition's drops.
        delivery = DeliveryQueue(name: "CaptureKit.composition", policy: .bounded(4), deliver: { [weak self] item in
            self?.draw(item)
        }, report: { [weak self] drop in
            self?.lost(drop.frame.count, from: drop.connection)
        })
    }

    deinit { delivery.stop() }

    override var acceptedMediaTypes: Set<MediaType> { [.video] }

    override var takesSeveralConnections: Bool { true }

    override func receive(_ sample: SampleBuffer, from connection: CaptureConnection) {
        delivery.enqueue(DeliveryQueue.Item(sample: sample, connection: connection))
    }

    override func deviceDidDrop(count: Int, from connection: CaptureConnection) { lost(count, from: connection) }

    override func deviceFeedingChanged(_ deviceID: String, isPresent: Bool) {
        let slots = connections.enumerated().filter { $0.element.device?.uniqueID == deviceID }.map(\.offset)
        if slots.contains(0) { backend.setPresent(isPresent) }
        pictures.withLock { pictures in
            for slot in slots where slot > 0 {
                if isPresent {
                    pictures.away.remove(slot)
                } else {
                    pictures.away.insert(slot)
                    pictures.places[slot] = nil
                }
            }
        }
    }

    private func slot(of connection: CaptureConnection) -> Int? {
        connections.firstIndex { $0 === connection }.flatMap { $0 < layout.cameraCount ? $0 : nil }
    }

    private func lost(_ count: Int, from connection: CaptureConnection) {
        if slot(of: connection) == 0 { backend.dropped(count) }
    }

    /// Scales a camera's frame into its place; a main frame then makes a composed frame.
    private func draw(_ item: DeliveryQueue.Item) {
        guard let slot = slot(of: item.connection), let source = item.sample.pixelBuffer else { return }
        let rect = layout.rectangle(for: slot, source: VideoDimensions(width: source.width, height: source.height), canvas: size)
        do throws(CaptureError) {
            let scaled = try item.sample.converted(to: VideoTarget(pixelFormat: .nv12, width: rect.width, height: rect.height))
            guard let picture = scaled.pixelBuffer else { return }
            let current = pictures.withLock { pictures -> [Int: Place] in
                if !pictures.away.contains(slot) { pictures.places[slot] = Place(picture: picture, rect: rect) }
                return pictures.places
            }
            guard slot == 0 else { return }
            let canvas = try pool.makeBuffer()
            NV12Canvas.clear(canvas)
            for (_, place) in current.sorted(by: { $0.key < $1.key }) { NV12Canvas.draw(place.picture, into: canvas, at: place.rect) }
            backend.deliver(SampleBuffer(media: .video(canvas), presentationTimeStamp: item.sample.presentationTimeStamp,
                                         duration: item.sample.duration, sequenceNumber: item.sample.sequenceNumber))
        } catch {
            if slot == 0 { backend.dropped(1) }
            session?.reportRuntimeError(error)
        }
    }
}
