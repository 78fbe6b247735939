import CaptureKit
import CaptureKitPreview
import CommandLineSupport
import Dispatch
import Foundation
import Glibc

/// `capture preview`: shows the camera in a window, or serves it as a web page.
enum PreviewCommand: Command {
    static let name = "preview"
    static let summary = "show the camera live in a window, or on a web page (--web)"
    /// What the command accepts; also the option lines of ``usage``.
    static let options: [CommandOption] = [
        .value("device", "ID", "camera unique ID or name (see 'capture devices')"),
        .value("gravity", "G", "aspect (whole picture, black bars; default), fill (cropped to fill)\nor stretch"),
        .flag("mirror", "mirror the picture left to right"),
        .flag("fullscreen", "open the window fullscreen"),
        .flag("web", "serve a web page instead of opening a window"),
    ] + WebPageOptions.options + [
        .value("library", "DIR", "the media library under DIR instead of the user's"),
        .value("quality", "Q", "JPEG quality of the web picture, 1...100 (default 75)"),
    ]

    static let usage = """
        usage: capture preview [--device ID] [--gravity aspect|fill|stretch] [--mirror] [--fullscreen]
               capture preview --web [--device ID] [--port N] [--bind ADDR] [--library DIR] [--quality Q]

        Without --web, opens a window (X11, Wayland, or KMS/DRM without a desktop) showing the
        default camera, or DEVICE, until the window is closed ('q' or its close button) or the
        command is interrupted. 'f', F11 or a double click toggles fullscreen.

        With --web, serves a page with the live picture, frame-rate and drop counters, and buttons
        that take a photo and start/stop a recording into the media library, and prints its URL.
        The URL carries a random access token; requests without it get 403. Runs until
        interrupted.

        \(CommandOption.helpText(for: options))
        """

    static func run(_ words: [String]) throws -> ExitStatus {
        let arguments = try Arguments(words, accepting: options)
        if let extra = arguments.positional.first { throw UsageError("unexpected argument '\(extra)'") }
        if arguments.has("web") {
            for option in ["gravity"] where arguments.value(option) != nil { throw UsageError("--\(option) is for the window, not --web") }
            if arguments.has("fullscreen") { throw UsageError("--fullscreen is for the window, not --web") }
            return try web(arguments)
        }
        for option in ["port", "bind", "library", "quality"] where arguments.value(option) != nil {
            throw UsageError("--\(option) goes with --web")
        }
        return try window(arguments)
    }

    private static func gravity(_ name: String?) throws(UsageError) -> VideoGravity {
        switch name?.lowercased() {
        case nil, "aspect": return .resizeAspect
        case "fill": return .resizeAspectFill
        case "stretch": return .resize
        default: throw UsageError("--gravity must be aspect, fill or stretch, not '\(name ?? "")'")
        }
    }

    private static func window(_ arguments: Arguments) throws -> ExitStatus {
        let gravity = try gravity(arguments.value("gravity"))
        guard CaptureVideoPreview.isDisplayAvailable else {
            throw CaptureError(.notSupported, "no display: set DISPLAY (X11) or WAYLAND_DISPLAY, run on a KMS console, or use 'capture preview --web'")
        }
        let device = try DeviceLookup.find(arguments.value("device"), mediaType: .video)
        let session = CaptureSession()
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: device))
        try session.setSessionPreset(.high)
        try session.commitConfiguration()
        var options = CaptureVideoPreview.WindowOptions()
        options.title = "\(device.localizedName) — CaptureKit"
        options.isFullscreen = arguments.has("fullscreen")
        let preview = try CaptureVideoPreview(session: session, options: options)
        preview.videoGravity = gravity
        if arguments.has("mirror") { preview.connection?.isVideoMirrored = true }
        try session.startRunning()
        Console.print("showing \(device.localizedName); close the window or press Ctrl-C to end")
        let interrupt = SignalWatcher(signals: [SIGINT, SIGTERM]) { preview.close() }
        let closed = DispatchSemaphore(value: 0)
        Task.detached {
            await preview.waitUntilClosed()
            closed.signal()
        }
        closed.wait()
        interrupt.cancel()
        preview.close()
        try session.stopRunning()
        let statistics = preview.statistics
        Console.print("shown \(statistics.presented) frames, dropped \(statistics.dropped)")
        if let error = preview.lastError { throw error }
        return .success
    }

    private static func web(_ arguments: Arguments) throws -> ExitStatus {
        var options = try WebPageOptions.parse(arguments)
        options.quality = try arguments.integer("quality", default: 75, in: 1...100)
        let library = try CommandPath.library(arguments, "library")
        let device = try DeviceLookup.find(arguments.value("device"), mediaType: .video)
        let manager = CaptureManager(library: library)
        try manager.configureVideoInput(device: device)
        let preview = try CaptureWebPreview(manager: manager, options: options)
        try manager.captureSession.startRunning()
        WebPageOptions.announce(preview, serving: device.localizedName, bindAddress: options.bindAddress, say: Console.print)
        let stopped = DispatchSemaphore(value: 0)
        let interrupt = SignalWatcher(signals: [SIGINT, SIGTERM]) { stopped.signal() }
        stopped.wait()
        interrupt.cancel()
        if manager.isRecordingMovieFile {
            let finished = DispatchSemaphore(value: 0)
            Task.detached {
                _ = try? await manager.finishRecordingMovieFile()
                finished.signal()
            }
            finished.wait()
        }
        preview.stop()
        try manager.captureSession.stopRunning()
        let statistics = preview.statistics
        Console.print("received \(statistics.framesReceived) frames, encoded \(statistics.framesEncoded), dropped \(statistics.droppedFrames)")
        return .success
    }
}
