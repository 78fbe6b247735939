/// Keeps a recording's audio track one contiguous run of samples placed by capture time, so
/// audio never drifts against video: a gap in the microphone's stream becomes silence, an
/// overlap (a source whose timestamps stepped back) is trimmed. Counts in samples; knows
/// nothing of encoders or files, so it is tested alone.
struct AudioPlacer: Sendable {
    /// What to append for one run of captured samples.
    struct Placement: Sendable, Equatable {
        /// Silent samples to append first (the gap before the run).
        var silence: Int64
        /// The run's samples to append after it (empty when the track already covers them).
        var samples: Range<Int64>
    }

    /// Samples in the track so far, silence included.
    private(set) var samplesWritten: Int64 = 0

    /// Places samples `samples` of a buffer whose first sample belongs at file position
    /// `position` (in samples at `rate`). `afterLoss` says the microphone was known to be away
    /// (the session was interrupted), so a gap of any length is real.
    mutating func place(_ samples: Range<Int64>, at position: Int64, rate: Int32, afterLoss: Bool = false) -> Placement {
        var first = samples.lowerBound
        var silence: Int64 = 0
        if position > samplesWritten {
            // Beyond 10 s, unless the microphone was away, the clock is wrong, not the
            // microphone: no minutes of silence.
            let gap = position - samplesWritten
            if afterLoss || gap < 10 * Int64(rate) { silence = gap }
        } else if position < samplesWritten {
            first = min(samples.upperBound, first + samplesWritten - position)
        }
        samplesWritten += silence + Int64(samples.upperBound - first)
        return Placement(silence: silence, samples: first..<samples.upperBound)
    }

    /// The silence that makes the track end at `target` samples when the microphone was behind
    /// by less than a second at the end; 0 otherwise.
    mutating func padding(to target: Int64, rate: Int32) -> Int64 {
        guard target > samplesWritten, target - samplesWritten < Int64(rate) else { return 0 }
        defer { samplesWritten = target }
        return target - samplesWritten
    }
}
