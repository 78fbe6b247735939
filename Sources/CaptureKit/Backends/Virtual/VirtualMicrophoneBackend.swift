import Foundation

/// The virtual microphone: a continuous sine tone, sample-exact on the monotonic clock
/// (buffer *k* starts at sample *k × framesPerBuffer*; no gap, no overlap).
final class VirtualMicrophoneBackend: DeviceBackend {
    let descriptor: DeviceDescriptor
    /// Every format the microphone was made with.
    let allFormats: [CaptureDevice.Format]
    let configuration: VirtualMicrophoneConfiguration
    let connection = VirtualConnection()

    /// `origin` is `.standIn` for the built-in microphone, `.virtual` for one made on request.
    init(configuration: VirtualMicrophoneConfiguration, origin: DeviceDescriptor.Origin = .virtual) throws(CaptureError) {
        guard (8_000...192_000).contains(configuration.sampleRate), configuration.framesPerBuffer > 0,
              configuration.frequency > 0, configuration.frequency < Double(configuration.sampleRate) / 2 else {
            throw .invalidArgument("virtual microphone needs a rate of 8...192 kHz, a positive buffer size and a tone below Nyquist")
        }
        self.configuration = configuration
        descriptor = DeviceDescriptor(
            uniqueID: configuration.uniqueID ?? VirtualDeviceProvider.slug(configuration.name),
            localizedName: configuration.name, modelID: "CaptureKit Virtual Microphone", manufacturer: "CaptureKit",
            deviceType: .virtual, position: .unspecified, mediaType: .audio, origin: origin)
        allFormats = [AudioFormat.SampleFormat.s16, .f32].flatMap { sampleFormat in
            [1, 2].map { CaptureDevice.Format(audioFormat: AudioFormat(sampleRate: configuration.sampleRate, channelCount: $0, sampleFormat: sampleFormat)) }
        }
    }

    /// What the microphone offers now: since `simulateReconnect(offering:)`, only those.
    var formats: [CaptureDevice.Format] { connection.offeredFormats ?? allFormats }
    var isConnected: Bool { connection.isConnected }
    var isLive: Bool { configuration.pacing == .realTime }

    func startStream(_ configuration: StreamConfiguration, sink: StreamSink) throws(CaptureError) -> any DeviceStream {
        try checkStartable(configuration.format)
        guard let format = configuration.format.audioFormat else { throw .internalError("audio format without sample format") }
        let tone = SineTone(frequency: self.configuration.frequency, level: self.configuration.level, format: format)
        let framesPerBuffer = self.configuration.framesPerBuffer
        let pool = StoragePool(blockSize: framesPerBuffer * format.bytesPerFrame, maximumIdle: 32)
        let period = MediaTime(value: Int64(framesPerBuffer), timescale: Int32(format.sampleRate))
        return VirtualStream(name: "CaptureKit.microphone", connection: connection, format: configuration.format, device: descriptor,
                             pacing: self.configuration.pacing,
                             period: period, maximumLateness: MediaTime(value: 1, timescale: 2), sink: sink) { index, pts, duration throws(CaptureError) in
            let buffer = AudioBuffer(format: format, frameCount: framesPerBuffer, storage: try pool.take())
            tone.write(into: buffer, firstFrame: index * framesPerBuffer)
            return SampleBuffer(media: .audio(buffer), presentationTimeStamp: pts, duration: duration,
                                sequenceNumber: UInt64(index * framesPerBuffer))
        }
    }
}

/// A sine tone whose sample *i* depends only on *i*: the phase is computed from the sample
/// index, so buffers join without clicks and a test can predict every sample.
struct SineTone: Sendable {
    let frequency: Double
    let amplitude: Double
    let format: AudioFormat

    init(frequency: Double, level: Double, format: AudioFormat) {
        self.frequency = frequency
        amplitude = pow(10, level / 20)
        self.format = format
    }

    /// The value of sample `index` in −1...1.
    func value(at index: Int) -> Double {
        // Whole seconds and the remainder separately: the phase stays exact over hours, also
        // for frequencies that are not whole numbers of hertz.
        let rate = format.sampleRate
        let wholeSeconds = frequency * Double(index / rate)
        let cycles = (wholeSeconds - wholeSeconds.rounded(.down)) + frequency * Double(index % rate) / Double(rate)
        return amplitude * sin(2 * .pi * (cycles - cycles.rounded(.down)))
    }

    func write(into buffer: AudioBuffer, firstFrame: Int) {
        let channels = format.channelCount
        buffer.withUnsafeMutableBytes { raw in
            switch format.sampleFormat {
            case .s16:
                let samples = raw.bindMemory(to: Int16.self)
                for frame in 0..<buffer.frameCount {
                    let sample = Int16(clamping: Int((value(at: firstFrame + frame) * 32767).rounded()))
                    for channel in 0..<channels { samples[frame * channels + channel] = sample }
                }
            case .s32:
                let samples = raw.bindMemory(to: Int32.self)
                for frame in 0..<buffer.frameCount {
                    let sample = Int32(clamping: Int64((value(at: firstFrame + frame) * 2_147_483_647).rounded()))
                    for channel in 0..<channels { samples[frame * channels + channel] = sample }
                }
            case .f32:
                let samples = raw.bindMemory(to: Float.self)
                for frame in 0..<buffer.frameCount {
                    let sample = Float(value(at: firstFrame + frame))
                    for channel in 0..<channels { samples[frame * channels + channel] = sample }
                }
            }
        }
    }
}
