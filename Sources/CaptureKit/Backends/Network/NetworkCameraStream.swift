/// A running network camera: one thread reads and decodes frames as they arrive and hands each
/// to the sink at once, dated by ``LiveTimeline``; while the sink wants no pixels (a recording
/// that stores the camera's packets, nothing else), it reads packets without decoding them. When the connection breaks, the server ends
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
         sink: StreamSink, connect: @escaping Connect, onGone: @escaping @Sendable () -> Void, onBack: @escaping @Sendable () -> Void,
         onClock: @escaping @Sendable (_ cameraClockOffset: Int64?) -> Void) {
        let box = ThreadHandOff(first)
        worker = WorkerThread(name: "CaptureKit.network", wake: { interrupt.stop() }) { thread in
            var reader: NetworkCameraReader? = box.take()
            var numbering = FrameRenumbering(frameDuration: frameDuration.nanoseconds ?? 0)
            var timeline = LiveTimeline()
            var clockOffset: Int64?
            var sequence: UInt64 = 0
            var returning = false
            var refused = false
            var delay = options.reconnectDelay.nanoseconds
            while !thread.isStopping {
                if let current = reader.take() {
                    var delivered = false
                    do throws(CaptureError) {
                        while !thread.isStopping, let frame = try current.next(wantsPixels: sink.wantsPixels()) {
                            if returning, !delivered {
                                onBack()
                                sink.event(.reconnected)
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
                            if missed > 0 { sink.event(.droppedFrames(count: missed)) }
                            sink.deliver(numbered)
                        }
                    } catch {
                        if !thread.isStopping { CaptureLog.emit(.warning, "capturekit", error.message) }
                    }
                    if thread.isStopping { return }
                    if !returning {
                        onGone()
                        sink.event(.disconnected)
                    }
                    returning = true
                    if delivered { delay = options.reconnectDelay.nanoseconds }
                }
                Self.wait(delay, thread)
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
                    if refusal, !refused { sink.event(.cannotResume(error)) }
                    refused = refusal
                    delay = min(delay * 2, options.maximumReconnectDelay.nanoseconds)
                }
            }
        }
    }

    func stop() { worker.stop() }

    /// Sleeps `nanoseconds`, in slices so that `stop()` is not held up.
    private static func wait(_ nanoseconds: Int64, _ thread: WorkerThread) {
        let deadline = MonotonicClock.nanoseconds() + nanoseconds
        while !thread.isStopping, MonotonicClock.nanoseconds() < deadline {
            MonotonicClock.sleep(untilNanoseconds: min(deadline, MonotonicClock.nanoseconds() + 20_000_000))
        }
    }
}
