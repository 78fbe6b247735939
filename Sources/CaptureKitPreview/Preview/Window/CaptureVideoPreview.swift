import CaptureKit
import Foundation
import Synchronization

/// A window showing a session's live video (`AVCaptureVideoPreviewLayer`), drawn with SDL2 on
/// X11, Wayland, or KMS/DRM on a board without a desktop.
///
/// ```swift
/// let preview = try CaptureVideoPreview(session: session)
/// preview.videoGravity = .resizeAspectFill
/// let tap = PreviewPoint(x: 320, y: 240)            // a click, in window points
/// let focus = preview.captureDevicePointConverted(fromLayerPoint: tap)
/// await preview.waitUntilClosed()
/// ```
///
/// The preview is an output of the session, fed by its own video ``connection`` — whose
/// ``/CaptureKit/CaptureConnection/isVideoMirrored`` and ``/CaptureKit/CaptureConnection/videoRotationAngle`` it shows.
/// Frames go to a render thread the preview owns through a one-frame slot: drawing never holds
/// up capture, the newest frame is shown and the others are dropped (and counted). The window
/// can be resized; `f`, F11 or a double click toggles fullscreen (Escape leaves it); `q` or the
/// window's close button closes it. One preview window at a time per process.
public final class CaptureVideoPreview: CaptureOutput, CaptureOutputReceiver, @unchecked Sendable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    /// How the window opens.
    public struct WindowOptions: Sendable {
        /// The window title.
        public var title = "CaptureKit Preview"
        /// The window size in points.
        public var width = 640
        /// The window size in points.
        public var height = 480
        /// Whether the window opens covering the screen.
        public var isFullscreen = false

        /// The defaults: a 640x480 window titled "CaptureKit Preview".
        public init() {}
    }

    /// A frame that reached the screen, with how it was drawn.
    public struct PresentedFrame: Sendable, Hashable {
        /// The frame's ``/CaptureKit/SampleBuffer/sequenceNumber``.
        public var sequenceNumber: UInt64
        /// The window size it was fitted to, in points.
        public var viewWidth: Int
        /// The window size it was fitted to, in points.
        public var viewHeight: Int
        /// The gravity it was fitted with.
        public var gravity: VideoGravity
        /// The clockwise rotation it was drawn with.
        public var rotation: Int
        /// Whether it was drawn mirrored.
        public var isMirrored: Bool
    }

    /// What the preview has shown and dropped.
    public struct Statistics: Sendable, Hashable {
        /// Frames drawn.
        public var presented: Int
        /// Frames not drawn: replaced by a newer one before the window got to them, or skipped
        /// by the device.
        public var dropped: Int
    }

    private struct State {
        var gravity = VideoGravity.resizeAspect
        var geometry: PreviewGeometry?
        var windowSize = (width: 0, height: 0)
        var presented = 0
        var deviceDrops = 0
        var isClosed = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
        var lastError: CaptureError?
    }

    private let state = Mutex(State())
    private let streams = Broadcast<PresentedFrame>()
    private let slot = NewestFrameSlot()
    private let open = Atomic<Bool>(true)
    private var window: PreviewWindow?

    /// Opens a window showing `session`'s video, and adds the preview to the session as an
    /// output. Throws `.notSupported` when there is no display (see ``isDisplayAvailable``),
    /// `.invalidState` when another preview window is open, or the session's reason for
    /// refusing the output.
    public init(session: CaptureSession, options: WindowOptions = WindowOptions()) throws(CaptureError) {
        super.init()
        forward(to: self)
        let callbacks = PreviewWindow.Callbacks(
            settings: { [weak self] in self?.renderSettings() ?? PreviewWindow.Settings(gravity: .resizeAspect, rotation: 0, isMirrored: false) },
            presented: { [weak self] sequence, geometry in self?.didPresent(sequence, geometry) },
            resized: { [weak self] width, height in self?.state.withLock { $0.windowSize = (width, height) } },
            closed: { [weak self] in self?.didClose() },
            failed: { [weak self] error in
                self?.state.withLock { $0.lastError = error }
                self?.session?.reportRuntimeError(error)
            })
        window = try PreviewWindow(options: options, slot: slot, callbacks: callbacks)
        do throws(CaptureError) {
            try session.addOutput(self)
        } catch {
            window?.close()
            throw error
        }
    }

    deinit { window?.close() }

    /// Whether a display seems reachable: an X11 or Wayland display is named in the
    /// environment, or a DRM device exists for KMS. Opening a window can still fail (for
    /// example when the display refuses the connection); that gives a clear error.
    public static var isDisplayAvailable: Bool {
        let environment = ProcessInfo.processInfo.environment
        if environment["DISPLAY"]?.isEmpty == false || environment["WAYLAND_DISPLAY"]?.isEmpty == false { return true }
        return FileManager.default.fileExists(atPath: "/dev/dri/card0")
    }

    /// How the picture fits the window (`videoGravity`); `.resizeAspect` by default.
    public var videoGravity: VideoGravity {
        get { state.withLock { $0.gravity } }
        set {
            state.withLock { $0.gravity = newValue }
            slot.wake()
        }
    }

    /// The session's video connection into this preview, whose mirroring and rotation are shown.
    public var connection: CaptureConnection? { connection(with: .video) }

    /// Whether the window is still open.
    public var isOpen: Bool { open.load(ordering: .acquiring) }

    /// Whether the window covers the screen.
    public var isFullscreen: Bool { window?.isFullscreen ?? false }

    /// Enters or leaves fullscreen (as `f` in the window does).
    public func setFullscreen(_ fullscreen: Bool) { window?.setFullscreen(fullscreen) }

    /// The window's size in points (the space of layer points).
    public var windowSize: (width: Int, height: Int) { state.withLock { $0.windowSize } }

    /// What the preview has shown and dropped.
    public var statistics: Statistics {
        let replaced = slot.replacedCount
        return state.withLock { Statistics(presented: $0.presented, dropped: $0.deviceDrops + replaced) }
    }

    /// The last error drawing a frame, if any (also reported as a session runtime error).
    public var lastError: CaptureError? { state.withLock { $0.lastError } }

    /// A new stream of the frames reaching the screen; ends when the window closes.
    public var presentedFrames: AsyncStream<PresentedFrame> { streams.makeStream(bufferingPolicy: .bufferingNewest(8)) }

    /// Closes the window and removes the preview from its session. Safe to call more than once.
    public func close() {
        window?.close()
        session?.removeOutput(self)
    }

    /// Returns once the window is closed, by ``close()`` or by its user.
    public func waitUntilClosed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let closed = state.withLock { state -> Bool in
                if !state.isClosed { state.closeWaiters.append(continuation) }
                return state.isClosed
            }
            if closed { continuation.resume() }
        }
    }

    // MARK: Coordinates

    /// The capture device point (normalized, in the unturned, unmirrored sensor picture) under
    /// a window point: for tap-to-focus (`captureDevicePointConverted(fromLayerPoint:)`).
    public func captureDevicePointConverted(fromLayerPoint point: PreviewPoint) -> PreviewPoint {
        currentGeometry().devicePoint(fromLayerPoint: point)
    }

    /// The window point showing a capture device point (`layerPointConverted(fromCaptureDevicePoint:)`).
    public func layerPointConverted(fromCaptureDevicePoint point: PreviewPoint) -> PreviewPoint {
        currentGeometry().layerPoint(fromDevicePoint: point)
    }

    /// The geometry as the window would draw now: the last frame's size (the device's active
    /// format before any frame), the connection's turn and mirroring, the current gravity and
    /// window size.
    private func currentGeometry() -> PreviewGeometry {
        let settings = renderSettings()
        let format = connection?.device?.activeFormat
        return state.withLock { state in
            PreviewGeometry(frameWidth: state.geometry?.frameWidth ?? format?.width ?? 1,
                            frameHeight: state.geometry?.frameHeight ?? format?.height ?? 1,
                            rotation: settings.rotation, isMirrored: settings.isMirrored, gravity: settings.gravity,
                            viewWidth: state.windowSize.width, viewHeight: state.windowSize.height)
        }
    }

    // MARK: Output

    package var acceptedMediaTypes: Set<MediaType> { [.video] }

    package func receive(_ sample: SampleBuffer, from connection: CaptureConnection) {
        guard open.load(ordering: .relaxed), sample.pixelBuffer != nil else { return }
        slot.put(sample)
    }

    package func deviceDidDrop(count: Int, from connection: CaptureConnection) {
        state.withLock { $0.deviceDrops += count }
    }

    private func renderSettings() -> PreviewWindow.Settings {
        let connection = connection
        let gravity = state.withLock { $0.gravity }
        return PreviewWindow.Settings(gravity: gravity, rotation: Int(connection?.videoRotationAngle ?? 0),
                                      isMirrored: connection?.isVideoMirrored ?? false)
    }

    private func didPresent(_ sequenceNumber: UInt64, _ geometry: PreviewGeometry) {
        let frame = PresentedFrame(sequenceNumber: sequenceNumber, viewWidth: geometry.viewWidth, viewHeight: geometry.viewHeight,
                                   gravity: geometry.gravity, rotation: geometry.rotation, isMirrored: geometry.isMirrored)
        state.withLock { state in
            state.presented += 1
            state.geometry = geometry
        }
        streams.yield(frame)
    }

    private func didClose() {
        open.store(false, ordering: .releasing)
        let waiters = state.withLock { state in
            state.isClosed = true
            defer { state.closeWaiters.removeAll() }
            return state.closeWaiters
        }
        streams.finish()
        for waiter in waiters { waiter.resume() }
    }
}
