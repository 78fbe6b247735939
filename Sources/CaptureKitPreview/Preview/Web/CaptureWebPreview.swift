import CaptureKit
import Dispatch
import Foundation
import Synchronization

/// A live preview for machines without a display: a web page served by libmicrohttpd with the
/// session's picture (MJPEG), the device name, frame-rate and drop counters, and — when made
/// with a ``/CaptureKit/CaptureManager`` — buttons that take a photo and start and stop a recording, with
/// the newest library items as thumbnails; and a timeline of recent events and clips
/// (``showClips(of:)``, ``showMotion(of:)``, ``addTimelineEvent(_:)``), each clip playable in the
/// page.
///
/// ```swift
/// let manager = CaptureManager(library: try .standard())
/// let preview = try CaptureWebPreview(manager: manager)   // 127.0.0.1, a free port
/// print("open \(preview.url)")                            // …/?token=<random>
/// ```
///
/// The server listens on 127.0.0.1 unless ``Options/bindAddress`` says otherwise, and answers
/// 403 to any request without the random access token that is part of ``url``. Each frame is
/// JPEG-encoded once, on the preview's own thread and only while someone watches, however many
/// viewers there are; each viewer's connection has its own thread that sends the newest frame
/// when it is ready for one, so slow or vanishing viewers never hold up capture or each other.
public final class CaptureWebPreview: CaptureOutput, CaptureOutputReceiver, @unchecked Sendable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    /// Where and how the page is served.
    public struct Options: Sendable {
        /// The address to listen on: 127.0.0.1 (this machine only) by default; "0.0.0.0" or
        /// "::" for every interface — anyone who can reach the port and has the URL can watch.
        public var bindAddress = "127.0.0.1"
        /// The port; 0 (the default) takes any free one.
        public var port = 0
        /// JPEG quality of the picture, 1...100.
        public var quality = 75
        /// The most connections served at once (viewers, status polls and button presses; one
        /// address may hold a quarter of them). High, so that hundreds of clients that connect
        /// and send nothing useful (each holds its connection until 30 s of silence) leave room
        /// for real ones.
        public var maximumConnections = 1024
        /// Host names the page may be reached under besides IP addresses and `localhost`
        /// (`"doorbell.local"`): any other `Host` is refused, so a site that rebinds its DNS
        /// name to this machine cannot reach the preview.
        public var allowedHostNames: [String] = []
        /// How many events and clips the page's timeline keeps, newest first; the page can
        /// play only the clips it keeps.
        public var timelineCapacity = 50

        /// The defaults: 127.0.0.1, a free port, quality 75.
        public init() {}
    }

    /// What the preview has received, encoded and dropped.
    public struct Statistics: Sendable, Hashable {
        /// Frames the session delivered to the preview.
        public var framesReceived: Int
        /// Frames JPEG-encoded (once each, for every viewer).
        public var framesEncoded: Int
        /// Frames not encoded because the encoder was busy, or skipped by the device.
        public var droppedFrames: Int
        /// Frames individual viewers skipped because they were slower than the camera.
        public var framesSkippedByViewers: Int
        /// Viewers connected to the picture stream now.
        public var viewers: Int
        /// The session's frame rate as the preview receives it.
        public var framesPerSecond: Double
    }

    private struct Counters {
        var received = 0
        var encoded = 0
        var dropped = 0
        var skippedByViewers = 0
        var meter = FrameRateMeter()
        var size = (width: 0, height: 0)
        var thumbnails: [String: Data] = [:]
    }

    /// The address of the page, access token included.
    public let url: URL
    /// The random access token every request must carry (`?token=`).
    public let accessToken: String
    /// The port the server listens on.
    public let port: Int
    /// The manager the buttons act through; nil for a view-only preview.
    private let manager: CaptureManager?
    private let options: Options
    private let counters = Mutex(Counters())
    private let viewers = Atomic<Int>(0)
    private let stillWanted = Atomic<Bool>(false)
    let broadcast = JPEGBroadcast()
    /// The timeline's events and clips, and the pictures taken for them.
    let timeline: Mutex<WebPreviewTimeline>
    /// The tasks that follow outputs' events onto the timeline; cancelled by ``stop()``.
    private let followers = Mutex<[Task<Void, Never>]>([])
    private let timelineSources = Atomic<Int>(0)
    /// Where the timeline's pictures are waited for: one thread, however many events come.
    let snapshots = DispatchQueue(label: "CaptureKit.webPreview.snapshots", qos: .utility)
    private var delivery: DeliveryQueue!
    private var server: WebPreviewServer?

    /// A view-only page of `session`'s picture: no photo or record buttons.
    public convenience init(session: CaptureSession, options: Options = Options()) throws(CaptureError) {
        try self.init(session: session, manager: nil, options: options)
    }

    /// A page of `manager`'s session with photo and record buttons; photos and movies go to the
    /// manager's library, whose newest items the page shows.
    public convenience init(manager: CaptureManager, options: Options = Options()) throws(CaptureError) {
        try self.init(session: manager.captureSession, manager: manager, options: options)
    }

    private init(session: CaptureSession, manager: CaptureManager?, options: Options) throws(CaptureError) {
        guard (1...100).contains(options.quality) else { throw .invalidArgument("JPEG quality \(options.quality) is out of range (1...100)") }
        guard options.maximumConnections > 0 else { throw .invalidArgument("maximumConnections must be at least 1") }
        guard options.timelineCapacity > 0 else { throw .invalidArgument("timelineCapacity must be at least 1") }
        self.manager = manager
        timeline = Mutex(WebPreviewTimeline(capacity: options.timelineCapacity))
        self.options = options
        accessToken = Self.makeToken()
        let route = RouteBox()
        let server = try WebPreviewServer(address: options.bindAddress, port: options.port, connectionLimit: options.maximumConnections,
                                          gate: WebPreviewGate(token: accessToken, allowedHostNames: options.allowedHostNames)) { request in
            route.handle(request)
        }
        port = server.port
        let host = options.bindAddress.contains(":") ? "[\(options.bindAddress)]" : options.bindAddress
        url = URL(string: "http://\(host):\(server.port)/?token=\(accessToken)")!
        super.init()
        forward(to: self)
        self.server = server
        delivery = DeliveryQueue(name: "CaptureKit.webPreview", policy: .newestOnly, deliver: { [weak self] item in
            self?.encode(item)
        }, report: { [weak self] drop in
            self?.counters.withLock { $0.dropped += drop.frame.count }
        })
        route.route(to: self)
        do throws(CaptureError) {
            try session.addOutput(self)
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// Whether the page has photo and record buttons (made with a ``/CaptureKit/CaptureManager``).
    public var isControlSupported: Bool { manager != nil }

    /// What the preview has received, encoded and dropped.
    public var statistics: Statistics {
        let viewers = viewers.load(ordering: .relaxed)
        let now = MonotonicClock.nanoseconds()
        return counters.withLock {
            Statistics(framesReceived: $0.received, framesEncoded: $0.encoded, droppedFrames: $0.dropped,
                       framesSkippedByViewers: $0.skippedByViewers, viewers: viewers, framesPerSecond: $0.meter.framesPerSecond(at: now))
        }
    }

    /// Stops serving: ends every viewer's stream, closes the listening socket and removes the
    /// preview from its session. Safe to call more than once.
    public func stop() {
        for follower in followers.withLock({ $0 }) { follower.cancel() }
        broadcast.close()
        server?.stop()
        delivery?.stop()
        session?.removeOutput(self)
    }

    // MARK: Output

    package var acceptedMediaTypes: Set<MediaType> { [.video] }

    package func receive(_ sample: SampleBuffer, from connection: CaptureConnection) {
        guard let pixels = sample.pixelBuffer else { return }
        let now = MonotonicClock.nanoseconds()
        counters.withLock {
            $0.received += 1
            $0.meter.record(at: now)
            $0.size = (pixels.width, pixels.height)
        }
        // Nobody watching: nothing is queued, let alone encoded.
        guard viewers.load(ordering: .relaxed) > 0 || stillWanted.load(ordering: .relaxed) else { return }
        delivery.enqueue(DeliveryQueue.Item(sample: sample, connection: connection))
    }

    package func deviceDidDrop(count: Int, from connection: CaptureConnection) {
        counters.withLock { $0.dropped += count }
    }

    /// Encodes one frame, turned and mirrored as the connection says, for every viewer.
    private func encode(_ item: DeliveryQueue.Item) {
        guard let pixels = item.sample.pixelBuffer else { return }
        let transform = VideoTransform(rotation: Int(item.connection.videoRotationAngle), isMirrored: item.connection.isVideoMirrored)
        do throws(CaptureError) {
            let jpeg = try JPEGEncoder.encode(pixels, quality: options.quality, applying: FrameRotation.orientation(for: transform), exif: nil)
            stillWanted.store(false, ordering: .relaxed)
            counters.withLock { $0.encoded += 1 }
            broadcast.publish(jpeg)
        } catch {
            session?.reportRuntimeError(error)
        }
    }

    // MARK: Routes

    /// Lets the server's route closure reach the preview, which exists only after the server.
    private final class RouteBox: Sendable {
        private struct Target {
            weak var preview: CaptureWebPreview?
        }

        private let target = Mutex(Target())

        func route(to preview: CaptureWebPreview) { target.withLock { $0.preview = preview } }

        func handle(_ request: WebPreviewServer.Request) -> WebPreviewServer.Response {
            guard let preview = target.withLock({ $0.preview }) else { return .text(503, "the preview has stopped") }
            return preview.handle(request)
        }
    }

    private func handle(_ request: WebPreviewServer.Request) -> WebPreviewServer.Response {
        // The token, Host, Origin and body were checked before routing (WebPreviewGate).
        switch (request.method, request.path) {
        case ("GET", "/"), ("GET", "/index.html"):
            return .body(status: 200, contentType: "text/html; charset=utf-8", Data(WebPreviewPage.html.utf8))
        case ("GET", "/stream.mjpg"):
            viewers.add(1, ordering: .relaxed)
            return .stream(MJPEGViewer(broadcast: broadcast) { [weak self] skipped in
                // Counted before the viewer leaves, so whoever sees it gone sees its skips.
                self?.counters.withLock { $0.skippedByViewers += skipped }
                self?.viewers.subtract(1, ordering: .relaxed)
            })
        case ("GET", "/frame.jpg"):
            return stillFrame()
        case ("GET", "/status.json"):
            return status()
        case ("GET", let path) where path.hasPrefix("/thumbnail/") && path.hasSuffix(".jpg"):
            return thumbnail(id: String(path.dropFirst("/thumbnail/".count).dropLast(".jpg".count)))
        case ("GET", let path) where path.hasPrefix("/timeline/"):
            return timelineFile(path.dropFirst("/timeline/".count), range: request.range)
        case ("POST", "/photo"):
            return control { manager throws(CaptureError) in try await manager.takePhoto().asset }
        case ("POST", "/record/start"):
            return control { manager throws(CaptureError) in
                try await manager.startRecordingMovieFile()
                return nil
            }
        case ("POST", "/record/stop"):
            return control { manager throws(CaptureError) in try await manager.finishRecordingMovieFile().asset }
        case (_, "/"), (_, "/stream.mjpg"), (_, "/frame.jpg"), (_, "/status.json"), (_, "/photo"), (_, "/record/start"), (_, "/record/stop"):
            return .text(405, "\(request.method) is not allowed on \(request.path)")
        default:
            return .text(404, "no such page: \(request.path)")
        }
    }

    /// Asks for the next frame to be encoded even if nobody is watching; returns the generation
    /// it will come after (``JPEGBroadcast/frame(after:timeout:)``).
    func requestFrame() -> UInt64 {
        let current = broadcast.newestGeneration
        stillWanted.store(true, ordering: .relaxed)
        return current
    }

    /// A new number for a followed output's timeline entries.
    func newTimelineSource() -> Int { timelineSources.add(1, ordering: .relaxed).newValue }

    /// Runs `body` until ``stop()``.
    func follow(_ body: @escaping @Sendable () async -> Void) {
        let task = Task(operation: body)
        followers.withLock { $0.append(task) }
    }

    /// The next frame as one JPEG, encoded for this request if nobody is watching.
    private func stillFrame() -> WebPreviewServer.Response {
        guard let frame = broadcast.frame(after: requestFrame(), timeout: 3) else {
            return .text(503, "no frame arrived within 3 s: is the session running?")
        }
        return .body(status: 200, contentType: "image/jpeg", frame.jpeg)
    }

    private func status() -> WebPreviewServer.Response {
        let statistics = statistics
        let size = counters.withLock { $0.size }
        let device = manager?.activeCamera ?? connection(with: .video)?.device
        var items: [WebPreviewStatus.LibraryItem] = []
        if let library = manager?.library, let assets = try? library.assets() {
            items = assets.sorted { $0.creationDate > $1.creationDate }.prefix(8).map {
                WebPreviewStatus.LibraryItem(id: $0.id, kind: $0.kind.rawValue, thumbnail: "thumbnail/\($0.id).jpg")
            }
        }
        let document = WebPreviewStatus(device: device?.localizedName ?? "no camera", width: size.width, height: size.height,
                                        framesPerSecond: (statistics.framesPerSecond * 10).rounded() / 10,
                                        framesReceived: statistics.framesReceived, framesEncoded: statistics.framesEncoded,
                                        droppedFrames: statistics.droppedFrames, viewers: statistics.viewers,
                                        controls: manager != nil, isRecording: manager?.isRecordingMovieFile ?? false, library: items,
                                        timeline: timeline.withLock { $0.entries.reversed().map(WebPreviewStatus.TimelineItem.init) })
        do {
            return .json(200, try JSONEncoder().encode(document))
        } catch {
            return .text(500, "cannot write the status: \(error)")
        }
    }

    /// A library item's thumbnail (at most 160x120, upright), made once and kept.
    private func thumbnail(id: String) -> WebPreviewServer.Response {
        if let cached = counters.withLock({ $0.thumbnails[id] }) { return .body(status: 200, contentType: "image/jpeg", cached) }
        guard let library = manager?.library else { return .text(404, "this preview has no library") }
        do throws(CaptureError) {
            guard let asset = try library.asset(id: id) else { return .text(404, "no library item \(id)") }
            let generator = AssetImageGenerator(asset: asset)
            generator.maximumSize = MediaAsset.Size(width: 160, height: 120)
            generator.appliesPreferredTrackTransform = true
            let data = try generator.jpegData(at: .zero).data
            counters.withLock { $0.thumbnails[id] = data }
            return .body(status: 200, contentType: "image/jpeg", data)
        } catch {
            return .text(500, "cannot make a thumbnail of \(id): \(error)")
        }
    }

    /// A timeline entry's file: `ID/clip` (a finished clip's movie) or `ID/thumbnail.jpg`.
    /// Only files an event named are served, and only while the timeline keeps the entry.
    private func timelineFile(_ path: Substring, range: String?) -> WebPreviewServer.Response {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let id = Int(parts[0]), let entry = timeline.withLock({ $0.entry(id) }) else {
            return .text(404, "no timeline entry /timeline/\(path)")
        }
        switch parts[1] {
        case "clip":
            guard entry.state == .finished, let clip = entry.clip else { return .text(404, "timeline entry \(id) has no finished clip") }
            return .file(clip, contentType: clip.pathExtension.lowercased() == "mov" ? "video/quicktime" : "video/mp4", range: range)
        case "thumbnail.jpg":
            if let file = entry.thumbnailFile, FileManager.default.isReadableFile(atPath: file.path) {
                return .file(file, contentType: "image/jpeg", range: range)
            }
            guard let snapshot = entry.snapshot else { return .text(404, "timeline entry \(id) has no picture yet") }
            return .body(status: 200, contentType: "image/jpeg", snapshot)
        default:
            return .text(404, "no timeline entry /timeline/\(path)")
        }
    }

    /// Runs a button's action through the manager and answers with the new library item, if
    /// any. Blocks this connection's thread only (libmicrohttpd gives each its own).
    private func control(_ action: @escaping @Sendable (CaptureManager) async throws(CaptureError) -> MediaAsset?) -> WebPreviewServer.Response {
        guard let manager else {
            return .text(409, "this preview shows a session without a capture manager: photos and recordings are not supported")
        }
        let outcome = Mutex<Result<MediaAsset?, CaptureError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do throws(CaptureError) {
                let asset = try await action(manager)
                outcome.withLock { $0 = .success(asset) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        switch outcome.withLock({ $0 }) {
        case .success(let asset):
            let body = asset.map { #"{"id":"\#($0.id)","kind":"\#($0.kind.rawValue)"}"# } ?? "{}"
            return .json(200, Data(body.utf8))
        case .failure(let error):
            return .text(error.code == .invalidState ? 409 : 500, error.description)
        case nil:
            return .text(500, "the action ended without a result")
        }
    }

    // MARK: Token

    /// 128 random bits as hex, from the system's generator (getrandom).
    private static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
    }
}
