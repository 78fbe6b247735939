/// A running network camera: one thread reads and decodes frames as they arrive and hands each
/// to the camera's sink at once, dated by ``LiveTimeline``; while the sink wants no pixels (a
/// recording that stores the camera's packets, nothing else) or the camera's stream is not
/// started, it reads packets without decoding them. While the microphone's stream is started,
/// the camera's sound read with them is decoded and handed to its sink first (it was read
/// before the frame), on the same timeline and laid end to end by a ``LiveSoundLayout``, gaps
/// reported as dropped samples. When the connection breaks, the server ends
/// the stream or no frame comes within the stall timeout, it reports `.disconnected` and
/// connects again with capped backoff (``NetworkCameraOptions/reconnectDelay`` doubling up to
/// ``NetworkCameraOptions/maximumReconnectDelay``); the camera counts as back with its first
/// frame (`.reconnected`), the frames missed meanwhile reported as skipped and the frame
/// numbers running on. A camera back with another picture size is `.cannotResume` and is
/// tried again.
final class NetworkCameraStream: DeviceStream {
    /// Connects again: the new reader, or an error when the camera cannot be reached yet.
    typealias Connect = @Sendable (NetworkInterrupt) throws(CaptureError) -> NetworkCameraReader

    private let worker: WorkerThread

    init(first: NetworkCameraReader, interrupt: NetworkInterrupt, frameDuration: MediaTime, options: NetworkCameraOptions,
         sinks: NetworkCameraSinks, connect: @escaping Connect, onGone: @escaping @Sendable () -> Void, onBack: @escaping @Sendable () -> Void,
         onClock: @escaping @Sendable (_ cameraClockOffset: Int64?) -> Void) {
        let box = ThreadHandOff(first)
        worker = WorkerThread(name: "CaptureKit.network", wake: { interrupt.stop() }) { thread in
            var reader: NetworkCameraReader? = box.take()
            var numbering = FrameRenumbering(frameDuration: frameDuration.nanoseconds ?? 0)
            var timeline = LiveTimeline()
            var placing: LiveSoundLayout?
            var clockOffset: Int64?
            var sequence: UInt64 = 0
            var returning = false
            var refused = false
            var delay = options.reconnectDelay.nanoseconds
            while !thread.isStopping {
                if let current = reader.take() {
                    var delivered = false
                    do throws(CaptureError) {
                        while !thread.isStopping {
                            current.wantedSound = sinks.soundFormat
                            let next = try current.next(wantsPixels: sinks.wantsPixels)
                            Self.deliverSound(current.takeSound(), timeline: &timeline, placing: &placing, to: sinks)
                            guard let frame = next else { break }
                            if returning, !delivered {
                                onBack()
                                sinks.event(.reconnected)
                                returning = false
                            }
                            delivered = true
                            let time = timeline.time(streamTime: frame.streamTime, cameraTime: frame.cameraTime, arrival: frame.arrival)
                            if timeline.cameraClockOffset != clockOffset {
                                clockOffset = timeline.cameraClockOffset
                                onClock(clockOffset)
                            }
                            let sample = SampleBuffer(media: .video(frame.buffer), presentationTimeStamp: MediaTime(value: time, timescale: 1_000_000_000),
                                                      duration: frameDuration, sequenceNumber: sequence, compressedFrames: frame.packets,
                                                      pixelsAreStandIn: frame.undecoded)
                            sequence += 1
                            let (numbered, missed) = numbering.number(sample)
                            if missed > 0 { sinks.videoEvent(.droppedFrames(count: missed)) }
                            sinks.deliverVideo(numbered)
                        }
                    } catch {
                        if !thread.isStopping { CaptureLog.emit(.warning, "capturekit", error.message) }
                    }
                    if thread.isStopping { return }
                    if !returning {
                        onGone()
                        sinks.event(.disconnected)
                    }
                    returning = true
                    if delivered { delay = options.reconnectDelay.nanoseconds }
                }
                thread.sleep(untilNanoseconds: MonotonicClock.nanoseconds() + delay)
                if thread.isStopping { return }
                do throws(CaptureError) {
                    reader = try connect(interrupt)
                    // A new connection numbers its frames from 0 on a clock of its own.
                    sequence = 0
                    timeline.restart()
                    numbering.resume()
                } catch {
                    if thread.isStopping { return }
                    // A camera that answers but will not do: reported once per return, as
                    // every backend does; the attempts go on.
                    let refusal = error.code == .unsupportedFormat || error.code == .notAuthorized
                    if refusal, !refused { sinks.event(.cannotResume(error)) }
                    refused = refusal
                    delay = min(delay * 2, options.maximumReconnectDelay.nanoseconds)
                }
            }
        }
    }

    func stop() { worker.stop() }

    /// Dates the sound read with a frame and hands it to the microphone's sink: each stretch by
    /// its last sample on the camera's timeline, laid end to end by a ``LiveSoundLayout`` (gaps
    /// reported as dropped samples).
    private static func deliverSound(_ heard: (sound: [NetworkCameraReader.Sound], lostPackets: Int), timeline: inout LiveTimeline,
                                     placing: inout LiveSoundLayout?, to sinks: NetworkCameraSinks) {
        if heard.lostPackets > 0 {
            CaptureLog.emit(.warning, "capturekit", "\(heard.lostPackets) packets of a network camera's sound could not be decoded")
        }
        guard let format = heard.sound.first?.buffer.format else { return }
        if placing?.rate != format.sampleRate { placing = LiveSoundLayout(rate: format.sampleRate) }
        guard var layout = placing else { return }
        defer { placing = layout }
        for sound in heard.sound where sound.buffer.format == format {
            let frames = sound.buffer.frameCount
            let end = timeline.time(.audio, streamTime: sound.streamEnd, cameraTime: sound.cameraEnd, arrival: sound.arrival)
            let start = MonotonicClock.samples(atNanoseconds: end, rate: format.sampleRate, rounding: .roundHalfAwayFromZero) - Int64(frames)
            guard let placement = layout.place(frames: frames, start: start) else { continue }
            if placement.gap > 0 { sinks.soundEvent(.droppedFrames(count: Int(placement.gap))) }
            guard let buffer = placement.cut == 0 ? sound.buffer : try? sound.buffer.dropping(first: placement.cut) else { continue }
            sinks.deliverSound(SampleBuffer(media: .audio(buffer), presentationTimeStamp: MediaTime(value: placement.start, timescale: Int32(format.sampleRate)),
                                            duration: buffer.duration, sequenceNumber: UInt64(max(0, placement.sequence))),
                               format: format)
        }
    }
}
