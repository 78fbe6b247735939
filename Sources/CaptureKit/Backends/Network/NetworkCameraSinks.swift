import Synchronization

/// Where one connection to a network camera sends what it reads: its camera's stream and its
/// microphone's, each absent while not started. The connection's thread delivers under the
/// lock, so a sink removed here receives nothing more once removal returns, while the other
/// goes on.
final class NetworkCameraSinks: Sendable {
    /// A listener to the camera's sound and the format it takes.
    struct Sound: Sendable {
        var sink: StreamSink
        var format: AudioFormat
    }

    private struct State {
        var video: StreamSink?
        var sound: Sound?
    }

    private let state = Mutex(State())

    /// Whether neither sink is set.
    var isEmpty: Bool { state.withLock { $0.video == nil && $0.sound == nil } }

    /// The format the sound is wanted in, nil while nobody listens.
    var soundFormat: AudioFormat? { state.withLock { $0.sound?.format } }

    /// Whether anything looks at the next frame's pixels; nobody does while the camera's
    /// stream is not started.
    var wantsPixels: Bool { state.withLock { $0.video?.wantsPixels() ?? false } }

    /// Sets (or, with nil, removes) the camera's sink.
    func setVideo(_ sink: StreamSink?) { state.withLock { $0.video = sink } }

    /// Sets (or, with nil, removes) the microphone's sink.
    func setSound(_ sound: Sound?) { state.withLock { $0.sound = sound } }

    /// Hands `sample` to the camera's sink, if started.
    func deliverVideo(_ sample: SampleBuffer) { state.withLock { $0.video?.deliver(sample) } }

    /// Hands `sample` (in `format`) to the microphone's sink, if started with that format.
    func deliverSound(_ sample: SampleBuffer, format: AudioFormat) {
        state.withLock { state in
            guard let sound = state.sound, sound.format == format else { return }
            sound.sink.deliver(sample)
        }
    }

    /// Reports `event` to the camera's sink only (frames it lost).
    func videoEvent(_ event: DeviceStreamEvent) { state.withLock { $0.video?.event(event) } }

    /// Reports `event` to the microphone's sink only (sound it lost).
    func soundEvent(_ event: DeviceStreamEvent) { state.withLock { $0.sound?.sink.event(event) } }

    /// Reports `event` to both (the connection went, came back, or was refused).
    func event(_ event: DeviceStreamEvent) {
        state.withLock { state in
            state.video?.event(event)
            state.sound?.sink.event(event)
        }
    }
}
