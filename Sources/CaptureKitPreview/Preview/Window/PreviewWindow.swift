import CaptureKit
internal import CSDL2
import Dispatch
import Foundation
import Synchronization

/// The SDL2 side of ``CaptureVideoPreview``: one window, drawn by a render thread the window
/// owns. SDL wants every video call on the thread that initialised video, so that thread does
/// everything — init, events, texture uploads, drawing, teardown — and the rest of CaptureKit
/// only talks to it through the newest-frame slot and a few atomics.
///
/// SDL's event queue is process-wide, so one preview window at a time per process.
final class PreviewWindow: @unchecked Sendable {
    // Unchecked Sendable: SDL state confined to the render thread.
    /// What the render thread reads from the preview before each drawing.
    struct Settings: Sendable {
        var gravity: VideoGravity
        var rotation: Int
        var isMirrored: Bool
    }

    /// What the preview learns from the render thread.
    struct Callbacks: Sendable {
        var settings: @Sendable () -> Settings
        /// After each presented drawing, with the geometry it used (view in window points).
        var presented: @Sendable (_ sequenceNumber: UInt64, _ geometry: PreviewGeometry) -> Void
        /// The window's size changed (window points).
        var resized: @Sendable (_ width: Int, _ height: Int) -> Void
        /// The window is gone: closed by its user, or by ``close()``.
        var closed: @Sendable () -> Void
        /// A frame could not be shown.
        var failed: @Sendable (CaptureError) -> Void
    }

    private static let inUse = Atomic<Bool>(false)

    private let slot: NewestFrameSlot
    private let callbacks: Callbacks
    private let options: CaptureVideoPreview.WindowOptions
    /// 1 asks the render thread to enter fullscreen, 2 to leave it, 0 nothing pending.
    private let fullscreenRequest = Atomic<Int>(0)
    private let fullscreen = Atomic<Bool>(false)
    private var worker: WorkerThread?

    /// Opens the window and returns once it is up; `.notSupported` when SDL finds no display.
    init(options: CaptureVideoPreview.WindowOptions, slot: NewestFrameSlot, callbacks: Callbacks) throws(CaptureError) {
        self.options = options
        self.slot = slot
        self.callbacks = callbacks
        guard !Self.inUse.exchange(true, ordering: .acquiringAndReleasing) else {
            throw CaptureError(.invalidState, "a preview window is already open in this process; close it first (SDL has one event queue per process)")
        }
        let startup = Startup()
        worker = WorkerThread(name: "CaptureKit.previewWindow", wake: { [slot] in slot.wake() }) { [self] thread in
            run(thread, startup: startup)
            Self.inUse.store(false, ordering: .releasing)
            callbacks.closed()
        }
        if let error = startup.wait() {
            worker?.stop()
            throw error
        }
    }

    /// Whether the window covers the whole screen.
    var isFullscreen: Bool { fullscreen.load(ordering: .relaxed) }

    /// Asks the render thread to enter or leave fullscreen.
    func setFullscreen(_ on: Bool) {
        fullscreenRequest.store(on ? 1 : 2, ordering: .relaxed)
        slot.wake()
    }

    /// Closes the window; returns once SDL has let go of it.
    func close() { worker?.stop() }

    /// The render thread's result of opening the window.
    private final class Startup: Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let error = Mutex<CaptureError?>(nil)

        func finish(_ error: CaptureError?) {
            self.error.withLock { $0 = error }
            done.signal()
        }

        func wait() -> CaptureError? {
            done.wait()
            return error.withLock { $0 }
        }
    }

    private static func sdlError(_ what: String, operation: String) -> CaptureError {
        CaptureError(.notSupported, "\(what): \(String(cString: SDL_GetError()))", operation: operation)
    }

    // MARK: Render thread

    private func run(_ thread: WorkerThread, startup: Startup) {
        do throws(CaptureError) {
            try loadSharedLibrary("SDL2", ck_sdl_load)
        } catch {
            startup.finish(error)
            return
        }
        // The CLI handles SIGINT itself; SDL must not turn it into a quit event behind its back.
        SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1")
        SDL_SetHint(SDL_HINT_RENDER_SCALE_QUALITY, "linear")
        guard SDL_InitSubSystem(UInt32(SDL_INIT_VIDEO)) == 0 else {
            startup.finish(Self.sdlError("no display for a preview window (set DISPLAY or WAYLAND_DISPLAY, run on a KMS console, or use the web preview)",
                                         operation: "SDL_InitSubSystem(SDL_INIT_VIDEO)"))
            return
        }
        defer { SDL_QuitSubSystem(UInt32(SDL_INIT_VIDEO)) }
        var flags = SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_ALLOW_HIGHDPI.rawValue
        if options.isFullscreen { flags |= SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue }
        let position = ck_sdl_windowpos_undefined()
        guard let window = SDL_CreateWindow(options.title, position, position, Int32(options.width), Int32(options.height), flags) else {
            startup.finish(Self.sdlError("cannot open a preview window", operation: "SDL_CreateWindow"))
            return
        }
        defer { SDL_DestroyWindow(window) }
        guard let renderer = SDL_CreateRenderer(window, -1, 0) ?? SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE.rawValue) else {
            startup.finish(Self.sdlError("cannot draw into the preview window", operation: "SDL_CreateRenderer"))
            return
        }
        defer { SDL_DestroyRenderer(renderer) }
        // Cameras send BT.601 limited range, which is what swscale and the JPEG path assume too.
        SDL_SetYUVConversionMode(SDL_YUV_CONVERSION_BT601)
        fullscreen.store(options.isFullscreen, ordering: .relaxed)
        startup.finish(nil)

        let texture = PreviewTexture(renderer: renderer)
        defer { texture.destroy() }
        var shown: SampleBuffer?
        var needsDrawing = true
        reportSize(window)
        while !thread.isStopping {
            var event = SDL_Event()
            while SDL_PollEvent(&event) != 0 {
                switch handle(event, window: window) {
                case .close: return
                case .redraw: needsDrawing = true
                case .nothing: break
                }
            }
            if applyFullscreenRequest(window) { needsDrawing = true }
            // Short waits keep window events (resize, close) responsive between frames.
            if let next = slot.take(timeout: needsDrawing ? 0 : 0.01) {
                shown = next
                needsDrawing = true
            }
            guard needsDrawing, let frame = shown else { continue }
            needsDrawing = false
            do throws(CaptureError) {
                try draw(frame, with: texture, renderer: renderer, window: window)
            } catch {
                callbacks.failed(error)
            }
        }
    }

    private enum EventOutcome { case nothing, redraw, close }

    private func handle(_ event: SDL_Event, window: OpaquePointer) -> EventOutcome {
        switch event.type {
        case SDL_QUIT.rawValue:
            return .close
        case SDL_WINDOWEVENT.rawValue:
            switch UInt32(event.window.event) {
            case SDL_WINDOWEVENT_CLOSE.rawValue: return .close
            case SDL_WINDOWEVENT_SIZE_CHANGED.rawValue:
                reportSize(window)
                return .redraw
            case SDL_WINDOWEVENT_EXPOSED.rawValue: return .redraw
            default: return .nothing
            }
        case SDL_KEYDOWN.rawValue:
            let key = Int(event.key.keysym.sym)
            if key == Int(SDLK_f.rawValue) || key == Int(SDLK_F11.rawValue) {
                setFullscreen(!isFullscreen)
            } else if key == Int(SDLK_ESCAPE.rawValue), isFullscreen {
                setFullscreen(false)
            } else if key == Int(SDLK_q.rawValue) {
                return .close
            }
            return .nothing
        case SDL_MOUSEBUTTONDOWN.rawValue:
            if event.button.clicks == 2 { setFullscreen(!isFullscreen) }
            return .nothing
        default:
            return .nothing
        }
    }

    private func reportSize(_ window: OpaquePointer) {
        var width: Int32 = 0, height: Int32 = 0
        SDL_GetWindowSize(window, &width, &height)
        callbacks.resized(Int(width), Int(height))
    }

    /// Carries out a pending fullscreen request; true when the window changed.
    private func applyFullscreenRequest(_ window: OpaquePointer) -> Bool {
        let request = fullscreenRequest.exchange(0, ordering: .relaxed)
        guard request != 0 else { return false }
        let on = request == 1
        guard SDL_SetWindowFullscreen(window, on ? SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue : 0) == 0 else {
            callbacks.failed(Self.sdlError("cannot \(on ? "enter" : "leave") fullscreen", operation: "SDL_SetWindowFullscreen"))
            return false
        }
        fullscreen.store(on, ordering: .relaxed)
        reportSize(window)
        return true
    }

    /// Uploads `frame`, then draws it mirrored, turned and fitted as the preview's settings say.
    private func draw(_ frame: SampleBuffer, with texture: PreviewTexture, renderer: OpaquePointer, window: OpaquePointer) throws(CaptureError) {
        guard let pixels = frame.pixelBuffer else { return }
        let upload = try texture.upload(PreviewTexture.isUploadable(pixels.pixelFormat)
            ? pixels : try frame.converted(to: VideoTarget(pixelFormat: .yuv420p)).pixelBuffer ?? pixels)
        let settings = callbacks.settings()
        var outputWidth: Int32 = 0, outputHeight: Int32 = 0
        SDL_GetRendererOutputSize(renderer, &outputWidth, &outputHeight)
        let geometry = PreviewGeometry(frameWidth: pixels.width, frameHeight: pixels.height, rotation: settings.rotation,
                                       isMirrored: settings.isMirrored, gravity: settings.gravity,
                                       viewWidth: Int(outputWidth), viewHeight: Int(outputHeight))
        let rect = geometry.pictureRect
        // SDL turns the destination rectangle about its centre, so for quarter turns it gets the
        // unturned shape; whatever overhangs the window (aspect fill) is clipped by SDL.
        let width = geometry.swapsDimensions ? rect.height : rect.width
        let height = geometry.swapsDimensions ? rect.width : rect.height
        var target = SDL_Rect(x: Int32((rect.x + (rect.width - width) / 2).rounded()), y: Int32((rect.y + (rect.height - height) / 2).rounded()),
                              w: Int32(width.rounded()), h: Int32(height.rounded()))
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
        SDL_RenderClear(renderer)
        guard SDL_RenderCopyEx(renderer, upload, nil, &target, Double(settings.rotation), nil,
                               settings.isMirrored ? SDL_FLIP_HORIZONTAL : SDL_FLIP_NONE) == 0 else {
            throw CaptureError(.conversionFailed, "cannot draw a frame: \(String(cString: SDL_GetError()))", operation: "SDL_RenderCopyEx")
        }
        SDL_RenderPresent(renderer)
        var windowWidth: Int32 = 0, windowHeight: Int32 = 0
        SDL_GetWindowSize(window, &windowWidth, &windowHeight)
        var pointGeometry = geometry
        pointGeometry.viewWidth = Int(windowWidth)
        pointGeometry.viewHeight = Int(windowHeight)
        callbacks.presented(frame.sequenceNumber, pointGeometry)
    }
}
