import Synchronization

/// What an ALSA device's streams have seen, for tests and diagnostics; shared by every stream
/// one ``ALSABackend`` starts.
final class ALSAStreamCounters: Sendable {
    /// Overruns (and suspends) recovered with `snd_pcm_recover`.
    let xruns = Atomic<Int>(0)
    /// Frames the timeline found lost (gaps).
    let lostFrames = Atomic<Int>(0)
}
