import Synchronization

/// The connection a network camera's camera and microphone share: one demuxer reads the
/// camera's pictures and sound, so a camera is connected to once whichever of its devices a
/// session uses, and the two stay on one clock. The connection starts with the first of the two
/// streams and stops with the last; either may start and stop while the other runs.
final class NetworkCameraFeed: Sendable {
    /// Starts a connection delivering to the sinks: connects at once, so that its errors are the
    /// starting stream's.
    typealias Start = (NetworkCameraSinks) throws(CaptureError) -> NetworkCameraStream

    private let sinks = NetworkCameraSinks()
    /// The running connection; its lock also orders starts and stops.
    private let running = Mutex<NetworkCameraStream?>(nil)

    /// Starts the camera's stream into `sink`; `start` connects unless already connected.
    func startVideo(_ sink: StreamSink, start: Start) throws(CaptureError) -> any DeviceStream {
        try attach(start) { $0.setVideo(sink) } detach: { $0.setVideo(nil) }
    }

    /// Starts the microphone's stream into `sink`, in `format`; `start` connects unless
    /// already connected.
    func startSound(_ sink: StreamSink, format: AudioFormat, start: Start) throws(CaptureError) -> any DeviceStream {
        try attach(start) { $0.setSound(NetworkCameraSinks.Sound(sink: sink, format: format)) } detach: { $0.setSound(nil) }
    }

    private func attach(_ start: Start, _ set: @escaping @Sendable (NetworkCameraSinks) -> Void,
                        detach clear: @escaping @Sendable (NetworkCameraSinks) -> Void) throws(CaptureError) -> any DeviceStream {
        let sinks = sinks
        try running.withLock { (running) throws(CaptureError) in
            set(sinks)
            guard running == nil else { return }
            do throws(CaptureError) {
                running = try start(sinks)
            } catch {
                clear(sinks)
                throw error
            }
        }
        return Attachment { [self] in detach(clear) }
    }

    /// Removes a stream's sink, and stops the connection when it was the last.
    private func detach(_ clear: @Sendable (NetworkCameraSinks) -> Void) {
        running.withLock { running in
            clear(sinks)
            guard sinks.isEmpty, let stream = running else { return }
            stream.stop()
            running = nil
        }
    }

    /// One device's stream on the shared connection.
    private final class Attachment: DeviceStream {
        private let once = Mutex<(@Sendable () -> Void)?>(nil)

        init(detach: @escaping @Sendable () -> Void) {
            once.withLock { $0 = detach }
        }

        func stop() {
            let detach = once.withLock { current in
                defer { current = nil }
                return current
            }
            detach?()
        }
    }
}
