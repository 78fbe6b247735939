import CaptureKit
import CommandLineSupport
import Foundation

/// `capture record OUT --device A --device B …`: several cameras in one multi-camera session,
/// recorded as one picture (`--layout pip`, `side-by-side`) or one file per camera
/// (`--layout separate`, the default: OUT is a folder), all files started on one frame time.
struct MultiCameraRecording {
    /// How the cameras are recorded.
    enum Layout: String, CaseIterable {
        case separate
        case pip
        case sideBySide = "side-by-side"
    }

    let layout: Layout
    let cameras: [CaptureDevice]
    let microphone: CaptureDevice?
    let output: URL
    let duration: MediaTime?
    let codec: MovieOutputSettings.VideoCodec?
    let fragment: MediaTime

    /// The layout `--layout` names (separate without it).
    static func layout(_ arguments: Arguments) throws -> Layout {
        guard let name = arguments.value("layout") else { return .separate }
        guard let layout = Layout(rawValue: name) else {
            throw UsageError("--layout is one of \(Layout.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'")
        }
        return layout
    }

    /// Records until `duration`, SIGINT or SIGTERM; prints one line per file.
    func run(quiet: Bool) throws -> ExitStatus {
        let session = CaptureMultiCamSession()
        var movies: [(movie: CaptureMovieFileOutput, url: URL)] = []
        try session.configure {
            let inputs = try cameras.map { try CaptureDeviceInput(device: $0) }
            for input in inputs { try session.addInputWithNoConnections(input) }
            let sound = try microphone.map { try CaptureDeviceInput(device: $0) }
            if let sound { try session.addInputWithNoConnections(sound) }
            let sources: [(video: CaptureInput, name: String)]
            switch layout {
            case .separate:
                sources = inputs.enumerated().map { ($0.element, "camera\($0.offset + 1).mp4") }
            case .pip, .sideBySide:
                let main = cameras[0].activeFormat
                let size = layout == .pip ? VideoDimensions(width: main.width & ~1, height: main.height & ~1)
                    : VideoDimensions(width: main.width * 2 & ~1, height: main.height & ~1)
                let composition = try CaptureCompositionOutput(layout: layout == .pip ? .pictureInPicture() : .sideBySide, size: size,
                                                               frameRate: Int32(max(1, (1 / cameras[0].activeVideoMinFrameDuration.seconds).rounded())))
                try session.addOutputWithNoConnections(composition)
                for input in inputs.prefix(2) { try connect(input, .video, to: composition, in: session) }
                let composed = try CaptureDeviceInput(device: composition.device)
                try session.addInputWithNoConnections(composed)
                sources = [(composed, output.lastPathComponent)]
            }
            for source in sources {
                let movie = CaptureMovieFileOutput()
                movie.movieFragmentInterval = fragment
                if let duration { movie.maxRecordedDuration = duration }
                try session.addOutputWithNoConnections(movie)
                try connect(source.video, .video, to: movie, in: session)
                if let sound { try connect(sound, .audio, to: movie, in: session) }
                movies.append((movie, layout == .separate ? output.appendingPathComponent(source.name) : output))
            }
        }
        if !quiet { Console.print("cameras: \(cameras.map(\.localizedName).joined(separator: ", ")); hardware cost \(String(format: "%.2f", session.hardwareCost))") }
        for (movie, _) in movies {
            for connection in movie.connections {
                var settings = movie.outputSettings(for: connection)
                if let codec { settings.videoCodec = codec }
                movie.setOutputSettings(settings, for: connection)
            }
        }

        signal(SIGXFSZ, SIG_IGN)
        let outputs = movies.map(\.movie)
        let interrupt = SignalWatcher(signals: [SIGINT, SIGTERM]) { for movie in outputs { movie.stopRecording() } }
        defer { interrupt.cancel() }
        try session.startRunning()
        defer { try? session.stopRunning() }
        // Every file begins with its camera's first frame from one moment on; half a second
        // ahead leaves each encoder the time to open.
        let start = MediaTime.now + MediaTime(value: 1, timescale: 2)
        let waiters = movies.map { _ in RecordingWaiter() }
        for (index, (movie, url)) in movies.enumerated() {
            try movie.startRecording(to: url, from: start, recordingDelegate: waiters[index])
        }
        // The first file to end (the duration reached, its camera lost, the disk full) ends the
        // others too: they belong together.
        var stopping = false
        while let running = waiters.first(where: { $0.wait(seconds: 0) == nil }) {
            if !stopping, waiters.contains(where: { $0.wait(seconds: 0) != nil }) {
                stopping = true
                for movie in outputs { movie.stopRecording() }
            }
            _ = running.wait(seconds: 0.2)
        }
        let failure = waiters.compactMap { $0.wait(seconds: 0) ?? nil }.first { !$0.recordingSuccessfullyFinished }
        let first = waiters.compactMap(\.startTime).min()
        for (index, (movie, _)) in movies.enumerated() {
            guard let clip = movie.lastRecordedMovie else { continue }
            let offset = waiters[index].startTime.flatMap { time in first.map { (time - $0).seconds } }
            Console.print(String(format: "%@: %.3f s, %d frames, %d bytes, %d dropped%@", clip.url.path, clip.duration.seconds, clip.videoFrameCount,
                                 clip.fileSize, clip.droppedSampleCount, offset.map { String(format: ", started +%.3f s", $0) } ?? ""))
        }
        if let failure { throw failure }
        return .success
    }

    private func connect(_ input: CaptureInput, _ media: MediaType, to output: CaptureOutput, in session: CaptureSession) throws {
        guard let port = input.port(for: media) else { throw CaptureError(.invalidArgument, "the input has no \(media)") }
        try session.addConnection(CaptureConnection(inputPorts: [port], output: output))
    }
}
