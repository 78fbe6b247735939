import Testing
@testable import CaptureKit

/// How captured audio is placed on the monotonic clock: one timeline, two policies (pure
/// arithmetic: no device needed).
@Suite("AudioTimeline", .excludable)
struct AudioTimelineTests {
    /// How captured audio is placed on the monotonic clock from the sound server's noisy "now −
    /// latency" measurements: sample-exact runs, jitter ignored, drift followed in small steps, lost
    /// audio reported as a gap and left out of place (a recording fills it with silence).
    struct SoundServer {
        static let rate = 48_000
        /// 10 ms buffers at 48 kHz.
        static let frames = 480

        static func makeTimeline() -> AudioTimeline { AudioTimeline(rate: rate, policy: .soundServer(rate: rate)) }

        /// Nanoseconds of sample `index` after a start at 1000 s of uptime.
        static func nanoseconds(ofSample index: Int64) -> Int64 {
            1_000_000_000_000 + index * 1_000_000_000 / Int64(rate)
        }

        /// When a buffer measured to start at `measured` is read: its last sample captured, 2 ms
        /// later (a prompt reader).
        static func read(_ measured: Int64) -> Int64 {
            measured + Int64(frames) * 1_000_000_000 / Int64(rate) + 2_000_000
        }

        @Test func jitterIsIgnoredAndBuffersJoinExactly() {
            var timeline = Self.makeTimeline()
            let first = timeline.place(frames: Self.frames, measuredStartNanoseconds: Self.nanoseconds(ofSample: 0),
                                       readNanoseconds: Self.read(Self.nanoseconds(ofSample: 0)))
            #expect(first.start == 48_000_000 && first.gap == 0 && first.sequence == 0)
            for index in 1..<500 {
                // ±1.5 ms of measurement jitter, alternating.
                let jitter: Int64 = index % 2 == 0 ? 1_500_000 : -1_500_000
                let captured = Self.nanoseconds(ofSample: Int64(index * Self.frames))
                let placement = timeline.place(frames: Self.frames, measuredStartNanoseconds: captured + jitter, readNanoseconds: Self.read(captured))
                #expect(placement.start == first.start + Int64(index * Self.frames), "buffer \(index)")
                #expect(placement.gap == 0)
                #expect(placement.sequence == Int64(index * Self.frames))
            }
        }

        /// Stamps never end after the read, so nothing waits: every buffer is due at its read.
        @Test func everyBufferIsDueWhenRead() {
            var timeline = Self.makeTimeline()
            for index in 0..<200 {
                let captured = Self.nanoseconds(ofSample: Int64(index * Self.frames))
                // Reported 3 ms late every other read, and a burst of reads at one moment.
                let measured = captured + (index % 2 == 0 ? 3_000_000 : 0)
                let read = index < 100 ? Self.read(captured) : Self.read(Self.nanoseconds(ofSample: Int64(100 * Self.frames)))
                let placement = timeline.place(frames: Self.frames, measuredStartNanoseconds: measured, readNanoseconds: read)
                #expect(placement.due == MonotonicClock.samples(atNanoseconds: read, rate: Self.rate, rounding: .roundTowardNegativeInfinity),
                        "buffer \(index)")
            }
        }

        @Test func lostAudioIsAGapAndTheRestKeepsItsRealTime() {
            var timeline = Self.makeTimeline()
            for index in 0..<10 {
                let captured = Self.nanoseconds(ofSample: Int64(index * Self.frames))
                _ = timeline.place(frames: Self.frames, measuredStartNanoseconds: captured, readNanoseconds: Self.read(captured))
            }
            // 100 ms (4800 samples) never arrived.
            let resumed = Self.nanoseconds(ofSample: Int64(10 * Self.frames + 4_800))
            let after = timeline.place(frames: Self.frames, measuredStartNanoseconds: resumed, readNanoseconds: Self.read(resumed))
            #expect(after.gap == 4_800)
            #expect(after.start == 48_000_000 + Int64(10 * Self.frames + 4_800))
            #expect(after.sequence == Int64(10 * Self.frames + 4_800), "sequence numbers count the lost samples")
            // …and the next one joins it again.
            let following = Self.nanoseconds(ofSample: Int64(11 * Self.frames + 4_800))
            let next = timeline.place(frames: Self.frames, measuredStartNanoseconds: following, readNanoseconds: Self.read(following))
            #expect(next.start == after.start + Int64(Self.frames) && next.gap == 0)
        }

        @Test func aHoleReportedByTheServerMovesTheNextBuffer() {
            var timeline = Self.makeTimeline()
            let first = timeline.place(frames: Self.frames, measuredStartNanoseconds: Self.nanoseconds(ofSample: 0),
                                       readNanoseconds: Self.read(Self.nanoseconds(ofSample: 0)))
            timeline.skip(frames: 960)
            let resumed = Self.nanoseconds(ofSample: Int64(Self.frames + 960))
            let next = timeline.place(frames: Self.frames, measuredStartNanoseconds: resumed, readNanoseconds: Self.read(resumed))
            #expect(next.start == first.start + Int64(Self.frames + 960))
            #expect(next.gap == 0, "the hole was reported when skipped, not again")
            #expect(next.sequence == Int64(Self.frames + 960))
        }

        /// A sound card whose clock runs 200 ppm fast against the CPU's (read 10 ms after capture,
        /// its buffer's latency): the timeline follows within the 5 ms tolerance, in a few small
        /// steps rather than at every buffer.
        @Test func driftIsFollowedInSmallSteps() {
            var timeline = Self.makeTimeline()
            var steps = 0
            var previousEnd: Int64?
            var worst: Int64 = 0
            for index in 0..<6_000 {   // one minute
                let sample = Int64(index * Self.frames)
                let measured = Self.nanoseconds(ofSample: sample) - sample * 1_000_000_000 / Int64(Self.rate) * 200 / 1_000_000
                let placement = timeline.place(frames: Self.frames, measuredStartNanoseconds: measured,
                                               readNanoseconds: Self.read(measured) + 8_000_000)
                if let previousEnd, placement.start != previousEnd { steps += 1 }
                #expect(placement.gap == 0)
                previousEnd = placement.start + Int64(Self.frames)
                worst = max(worst, abs(placement.start - MonotonicClock.samples(atNanoseconds: measured, rate: Self.rate, rounding: .roundHalfAwayFromZero)))
            }
            // 12 ms of drift over the minute, followed in steps of about 5 ms.
            #expect(steps >= 1 && steps <= 4, "\(steps) corrections")
            #expect(worst <= 8 * 48, "stays within 8 ms of the measured time (worst \(worst) samples)")
        }

        // MARK: Never after the read

        /// A source clock 200 ppm fast read promptly (2 ms after capture, like PipeWire's virtual
        /// sources, which have no device latency): the filter's 5 ms would end buffers after their
        /// reads, so the position steps back at the read time, 1 ms at a time.
        @Test func aFastSourceReadPromptlyIsFollowedInMillisecondSteps() {
            var timeline = Self.makeTimeline()
            var steps: [Int64] = []
            var previousEnd: Int64?
            var worst: Int64 = 0, late = 0
            for index in 0..<6_000 {
                let nominal = Int64(index * Self.frames) * 1_000_000_000 / Int64(Self.rate)
                let captured = 1_000_000_000_000 + nominal - nominal * 200 / 1_000_000
                let buffer = Read(captured: captured, delay: 2_000_000, underReport: 0)
                let placement = timeline.place(frames: Self.frames, measuredStartNanoseconds: buffer.measured, readNanoseconds: buffer.read)
                if let previousEnd, placement.start != previousEnd { steps.append(placement.start - previousEnd) }
                if !buffer.endsByRead(placement) { late += 1 }
                previousEnd = placement.start + Int64(Self.frames)
                worst = max(worst, abs(placement.start - MonotonicClock.samples(atNanoseconds: captured, rate: Self.rate, rounding: .roundHalfAwayFromZero)))
            }
            #expect(late == 0, "\(late) buffers end after their read time")
            // 12 ms over the minute: about one step back per 2.5 ms of drift (2 ms of read delay
            // plus the 1 ms margin... minus what the first step took).
            #expect(steps.allSatisfy { $0 < 0 } && steps.count <= 12, "\(steps.count) steps: \(steps)")
            #expect(worst <= 3 * 48, "within 3 ms of the capture time (worst \(worst) samples)")
        }

        /// One buffer of 10 ms, captured at `captured`, read `delay` after its last sample, with the
        /// server's latency report `underReport` short of the truth; the placement, and whether it
        /// ends by the read.
        struct Read {
            var captured: Int64
            var delay: Int64
            var underReport: Int64

            var read: Int64 { captured + Int64(SoundServer.frames) * 1_000_000_000 / Int64(SoundServer.rate) + delay }
            var measured: Int64 { captured + underReport }

            func endsByRead(_ placement: AudioTimeline.Placement) -> Bool {
                (placement.start + Int64(SoundServer.frames)) * 1_000_000_000 / Int64(SoundServer.rate) <= read
            }
        }

        /// PipeWire's pulse server reports a record stream's latency below the buffer it hands over
        /// (by ~1 ms, and at stream start close to 0): taken as it is, it placed every buffer after
        /// the moment it was read, 5 ms on an idle machine and 20 ms under load. A buffer's last
        /// sample was captured before it was read, so no buffer ends after its read time, and the
        /// first one's place comes from its read.
        @Test func aLowLatencyReportNeverPlacesAudioAfterItsRead() {
            var timeline = Self.makeTimeline()
            let delays: [Int64] = [20_000, 500_000, 3_000_000, 1_000_000]
            var late: [Int] = []
            for index in 0..<1_000 {
                let captured = Self.nanoseconds(ofSample: Int64(index * Self.frames))
                let delay = delays[index % delays.count]
                // The first report: 0.02 ms for a buffer 10 ms old; then 1 ms short.
                let underReport = index == 0 ? Int64(Self.frames) * 1_000_000_000 / Int64(Self.rate) + delay - 20_000 : 1_000_000
                let buffer = Read(captured: captured, delay: delay, underReport: underReport)
                let placement = timeline.place(frames: Self.frames, measuredStartNanoseconds: buffer.measured, readNanoseconds: buffer.read)
                if !buffer.endsByRead(placement) { late.append(index) }
                // At its capture time, within the one sample the read's rounding costs.
                let truth = MonotonicClock.samples(atNanoseconds: captured, rate: Self.rate, rounding: .roundHalfAwayFromZero)
                #expect((-1...0).contains(placement.start - truth), "buffer \(index) placed \(placement.start - truth) samples off")
            }
            #expect(late.isEmpty, "\(late.count) buffers end after their read time, first \(late.prefix(5))")
        }

        /// A loaded reader: nine reads in ten come 8 ms late, and the latency report leaves that
        /// out, so the measurements say the audio is ~7 ms later than placed. Every tenth read is
        /// prompt and proves it is not. The position holds still rather than stepping forward at
        /// the late reads and back at each prompt one.
        @Test func lateReadsDoNotPullThePositionForward() {
            var timeline = Self.makeTimeline()
            var steps = 0, late = 0
            var previousEnd: Int64?
            for index in 0..<3_000 {
                let captured = Self.nanoseconds(ofSample: Int64(index * Self.frames))
                let delay: Int64 = index % 10 == 0 ? 100_000 : 8_000_000
                let buffer = Read(captured: captured, delay: delay, underReport: delay + 500_000)
                let placement = timeline.place(frames: Self.frames, measuredStartNanoseconds: buffer.measured, readNanoseconds: buffer.read)
                if let previousEnd, placement.start != previousEnd { steps += 1 }
                if !buffer.endsByRead(placement) { late += 1 }
                previousEnd = placement.start + Int64(Self.frames)
            }
            #expect(late == 0, "\(late) buffers end after their read time")
            #expect(steps == 0, "\(steps) re-alignments for a source whose samples never moved")
        }

        /// A source that delivers fewer samples than time passes (PipeWire's pw-cat tone under load
        /// fell 80 to 120 ms behind in a minute, 2000 ppm): what it did deliver was captured later
        /// and later against its sample count, and the timeline follows in forward steps — as much
        /// correction in total as the source lagged, each buffer within the drift tolerance (plus the
        /// filter's delay) of its capture time, none after its read.
        @Test func aSourceThatFallsBehindIsFollowed() {
            var timeline = Self.makeTimeline()
            var corrections: [Int64] = []
            var previousEnd: Int64?
            var worst: Int64 = 0, late = 0
            let slow = 2_000   // ppm
            for index in 0..<6_000 {
                let nominal = Int64(index * Self.frames) * 1_000_000_000 / Int64(Self.rate)
                let captured = 1_000_000_000_000 + nominal + nominal * Int64(slow) / 1_000_000
                let buffer = Read(captured: captured, delay: 200_000, underReport: 500_000)
                let placement = timeline.place(frames: Self.frames, measuredStartNanoseconds: buffer.measured, readNanoseconds: buffer.read)
                if let previousEnd, placement.start != previousEnd { corrections.append(placement.start - previousEnd) }
                if !buffer.endsByRead(placement) { late += 1 }
                previousEnd = placement.start + Int64(Self.frames)
                worst = max(worst, abs(placement.start - MonotonicClock.samples(atNanoseconds: captured, rate: Self.rate, rounding: .roundHalfAwayFromZero)))
            }
            let lag = Int64(6_000 * Self.frames) * Int64(slow) / 1_000_000   // samples the source fell behind
            #expect(late == 0, "\(late) buffers end after their read time")
            #expect(corrections.allSatisfy { $0 > 0 }, "forward steps only: \(corrections)")
            // Behind by at most the tolerance plus what the filter's 64 buffers lag.
            let behind = (timeline.policy.driftTolerance ?? 0) + 64 * Int64(Self.frames) * Int64(slow) / 1_000_000
            #expect((0...behind).contains(lag - corrections.reduce(0, +)), "corrected \(corrections.reduce(0, +)) samples for a lag of \(lag)")
            #expect(worst <= 8 * 48, "within 8 ms of the capture time (worst \(worst) samples)")
        }
    }

    /// A sound card read with `snd_pcm_delay`: the sample count is believed, the clock reveals
    /// losses and unpaced PCMs.
    struct Card {
        /// 48 kHz, 10 ms periods, a 100 ms buffer: tolerance is 100 ms + 20 ms = 5760 frames.
        func makeTimeline() -> AudioTimeline { AudioTimeline(rate: 48_000, policy: .card(rate: 48_000, bufferFrames: 4_800)) }

        @Test func steadyReadsJoinExactlyDespiteJitter() {
            var timeline = makeTimeline()
            var now: Int64 = 1_000_000
            var expected: Int64?
            for index in 0..<200 {
                // Reads arrive with up to 3 ms of scheduling jitter and varying buffered frames.
                let jitter = Int64((index * 37) % 144)
                now += 480
                let placement = timeline.place(frames: 480, readAt: now + jitter, delay: index % 3 == 0 ? 480 : 0, afterLoss: false)
                if let expected { #expect(placement.start == expected) }
                #expect(placement.gap == 0)
                #expect(placement.due == now + jitter, "paced devices are delivered at once")
                expected = placement.start + 480
            }
            #expect(!timeline.isUnpaced)
        }

        /// More frames than time allows are a PCM running ahead of the clock, not a restart: the
        /// count is kept (a sound server's timeline would jump back to the measurement).
        @Test func anEarlierMeasurementIsNotFollowed() {
            var timeline = makeTimeline()
            var now: Int64 = 100_000
            var last = timeline.place(frames: 480, readAt: now, delay: 0, afterLoss: false)
            for _ in 0..<30 {
                now += 120   // a quarter of the time the frames take
                let placement = timeline.place(frames: 480, readAt: now, delay: 0, afterLoss: false)
                #expect(placement.start == last.start + 480 && placement.gap == 0)
                last = placement
            }
            #expect(timeline.isUnpaced)
        }

        @Test func aStallLongerThanTheBufferIsAGap() {
            var timeline = makeTimeline()
            var now: Int64 = 10_000
            for _ in 0..<10 { now += 480; _ = timeline.place(frames: 480, readAt: now, delay: 0, afterLoss: false) }
            let before = timeline.place(frames: 480, readAt: now + 480, delay: 0, afterLoss: false)
            now += 480 + 24_000   // 500 ms without reads
            let after = timeline.place(frames: 480, readAt: now + 480, delay: 0, afterLoss: false)
            #expect(after.gap == 24_000)
            #expect(after.start == before.start + 480 + 24_000)
        }

        @Test func anXrunReportsEvenASmallGap() {
            var timeline = makeTimeline()
            var now: Int64 = 10_000
            for _ in 0..<10 { now += 480; _ = timeline.place(frames: 480, readAt: now, delay: 0, afterLoss: false) }
            now += 480 + 960
            #expect(timeline.place(frames: 480, readAt: now, delay: 0, afterLoss: false).gap == 0, "20 ms late is jitter")
            now += 480 + 960
            #expect(timeline.place(frames: 480, readAt: now, delay: 0, afterLoss: true).gap == 1_920, "after an xrun it is loss")
        }

        @Test func aPCMFasterThanTheClockIsPacedOnIt() {
            var timeline = makeTimeline()
            let now: Int64 = 50_000
            var last = timeline.place(frames: 480, readAt: now, delay: 0, afterLoss: false)
            // The file plugin: everything is readable at once.
            for _ in 0..<20 { last = timeline.place(frames: 480, readAt: now, delay: 0, afterLoss: false) }
            #expect(timeline.isUnpaced)
            #expect(last.due == last.start + 480, "delivered when its last frame is due")
            #expect(last.due > now)
        }

        /// The `file` plugin hands over its first 120 ms at once, and reports no delay: before the
        /// timeline can tell the PCM is unpaced, those buffers would have been delivered up to
        /// 115 ms before the times they are stamped with. None is delivered before its last frame
        /// is due.
        @Test func aBurstIsNotDeliveredAheadOfItsTime() {
            var timeline = makeTimeline()
            let now: Int64 = 50_000
            for index in 0..<12 {
                let placement = timeline.place(frames: 480, readAt: now, delay: 0, afterLoss: false)
                #expect(placement.due >= placement.start + 480, "buffer \(index) delivered before it ends")
                #expect(placement.due >= now)
            }
            #expect(!timeline.isUnpaced, "within the tolerance it could still be a paced PCM's burst")
        }
    }
}
