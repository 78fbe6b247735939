/// When a ``CapturePreRollOutput`` starts a clip by itself on sound
/// (``CapturePreRollOutput/setSoundTrigger(_:)``): the sound's level — each buffer's RMS, in
/// dB below full scale, of its loudest channel, as ``CaptureAudioChannel/averagePowerLevel``
/// measures it — above ``threshold`` for at least ``minimumDuration``. The clip's trigger is
/// where the loud stretch began, so its pre-roll reaches before the sound; while the sound goes
/// on, the clip goes on (a trigger a second, each extending it by the post-roll).
public struct SoundTrigger: Sendable, Hashable {
    /// The level that counts as loud, dBFS (−160...0; −30 by default: speech near the
    /// microphone, a doorbell).
    public var threshold: Float
    /// How long the level must stay above the threshold (0.2 s by default: a click or a
    /// clap's echo does not start a clip).
    public var minimumDuration: MediaTime

    /// A trigger at `threshold` dBFS lasting `minimumDuration`.
    public init(threshold: Float = -30, minimumDuration: MediaTime = MediaTime(value: 1, timescale: 5)) {
        self.threshold = threshold
        self.minimumDuration = minimumDuration
    }
}

/// The sound trigger's state over the buffers heard: quiet, loud since a time, or fired.
struct SoundTriggerState: Sendable {
    let trigger: SoundTrigger
    /// When the current loud stretch began; nil while quiet.
    private var loudSince: MediaTime?
    /// When the last trigger for the current stretch was given.
    private var lastFired: MediaTime?

    /// How often a stretch that goes on triggers again, extending its clip.
    static let repeatInterval = MediaTime(value: 1, timescale: 1)

    init(_ trigger: SoundTrigger) {
        self.trigger = trigger
    }

    /// Hears a buffer at `level` dBFS starting at `time` and lasting `duration`: the time to
    /// trigger at (where the loud stretch began, the first time), or nil.
    mutating func hear(level: Float, at time: MediaTime, duration: MediaTime) -> MediaTime? {
        guard level >= trigger.threshold else {
            loudSince = nil
            lastFired = nil
            return nil
        }
        let since = loudSince ?? time
        loudSince = since
        let end = time + duration
        guard end - since >= trigger.minimumDuration else { return nil }
        if let fired = lastFired {
            guard end - fired >= Self.repeatInterval else { return nil }
            lastFired = end
            return end
        }
        lastFired = end
        return since
    }
}
