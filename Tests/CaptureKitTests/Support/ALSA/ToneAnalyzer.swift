import Foundation
@testable import CaptureKit

/// Measures a captured tone: its frequency with a Goertzel scan (coarse over the spectrum on a
/// short window, then 0.1 Hz steps around the peak on the whole signal) and its level. Used to
/// check that audio came through a device or a conversion unchanged.
struct ToneAnalyzer {
    /// Samples of one channel, in −1...1.
    let samples: [Float]
    let sampleRate: Int

    /// The first channel of `buffers`, concatenated; leading silence (a sound server's start-up)
    /// is trimmed.
    init(buffers: [AudioBuffer], channel: Int = 0) {
        var mono: [Float] = []
        for buffer in buffers {
            let all = buffer.floatSamples()
            let channels = buffer.format.channelCount
            mono.reserveCapacity(mono.count + buffer.frameCount)
            for frame in 0..<buffer.frameCount { mono.append(all[frame * channels + channel]) }
        }
        let firstSound = mono.firstIndex { abs($0) > 0.002 } ?? mono.count
        samples = Array(mono[firstSound...])
        sampleRate = buffers.first?.format.sampleRate ?? 48_000
    }

    /// One channel's samples at `sampleRate`, as they are.
    init(samples: [Float], sampleRate: Int) {
        self.samples = samples
        self.sampleRate = sampleRate
    }

    /// Goertzel power of `frequency` over the first `count` samples.
    func power(at frequency: Double, count: Int? = nil) -> Double {
        let n = min(count ?? samples.count, samples.count)
        let coefficient = 2 * cos(2 * Double.pi * frequency / Double(sampleRate))
        var s1 = 0.0, s2 = 0.0
        samples.withUnsafeBufferPointer { x in
            for index in 0..<n {
                let s0 = Double(x[index]) + coefficient * s1 - s2
                s2 = s1
                s1 = s0
            }
        }
        return s1 * s1 + s2 * s2 - coefficient * s1 * s2
    }

    /// The dominant frequency in hertz (0 for an empty signal).
    var dominantFrequency: Double {
        guard samples.count >= sampleRate / 10 else { return 0 }
        let window = sampleRate / 10
        var coarse = 20.0
        var best = -1.0
        var frequency = 20.0
        while frequency < min(8_000, Double(sampleRate) / 2 - 10) {
            let p = power(at: frequency, count: window)
            if p > best { best = p; coarse = frequency }
            frequency += 5
        }
        // Refine on at most one second: 0.1 Hz steps resolve far better than ±2 Hz.
        let length = min(samples.count, sampleRate)
        var fine = coarse
        best = -1
        frequency = coarse - 12
        while frequency <= coarse + 12 {
            let p = power(at: frequency, count: length)
            if p > best { best = p; fine = frequency }
            frequency += 0.1
        }
        return fine
    }

    /// The peak sample in dBFS.
    var peakLevel: Double { 20 * log10(Double(samples.map { abs($0) }.max() ?? 0) + 1e-12) }

    /// The RMS level in dBFS, referenced to a full-scale sine (AES17: a sine reads its peak level).
    var rmsLevel: Double {
        guard !samples.isEmpty else { return -160 }
        let meanSquare = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)
        return 10 * log10(2 * meanSquare + 1e-24)
    }

    /// The median of the RMS levels of 40 ms blocks, in dBFS (AES17): the level of a tone whose
    /// source (a sound server under load) had short dropouts, which the plain RMS would average in.
    var typicalRMSLevel: Double {
        let block = max(1, sampleRate / 25)
        let levels = stride(from: 0, to: samples.count - block + 1, by: block).map { start -> Double in
            let meanSquare = samples[start..<start + block].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(block)
            return 10 * log10(2 * meanSquare + 1e-24)
        }.sorted()
        return levels.isEmpty ? -160 : levels[levels.count / 2]
    }

    // MARK: Without the source's dropouts

    /// The 50 ms blocks that hold no dropout: no half millisecond below −34 dBFS, which a tone
    /// of −20 dBFS or more never stays under. A sound server under load fills the cycles its
    /// source missed with silence (PipeWire: 5.3 ms quanta, from pw-cat when its feeder is not
    /// scheduled in time); that moves the tone's phase and lowers its level, and the library
    /// delivers it as it is, in its place. What is left is the tone as the source made it.
    var dropoutFreeBlocks: [ArraySlice<Float>] {
        let length = sampleRate / 20, quiet = sampleRate / 2_000
        return stride(from: 0, to: samples.count - length + 1, by: length).compactMap { start in
            let block = samples[start..<start + length]
            var run = 0
            for sample in block {
                run = abs(sample) < 0.02 ? run + 1 : 0
                if run >= quiet { return nil }
            }
            return block
        }
    }

    /// The tone's frequency in hertz: the median over ``dropoutFreeBlocks`` of each block's
    /// Goertzel peak (0.25 Hz steps within ±12 Hz of the whole signal's coarse peak); nil when
    /// no block is free of dropouts.
    var dropoutFreeFrequency: Double? {
        let blocks = dropoutFreeBlocks
        guard !blocks.isEmpty else { return nil }
        // Dropouts smear the whole signal's peak by a few hertz at most.
        let coarse = dominantFrequency
        let peaks = blocks.map { block -> Double in
            let analyzer = ToneAnalyzer(samples: Array(block), sampleRate: sampleRate)
            return stride(from: coarse - 12, through: coarse + 12, by: 0.25).max { analyzer.power(at: $0) < analyzer.power(at: $1) } ?? 0
        }.sorted()
        return peaks[peaks.count / 2]
    }

    /// The tone's RMS level in dBFS (AES17): the median over ``dropoutFreeBlocks``; nil when no
    /// block is free of dropouts.
    var dropoutFreeRMSLevel: Double? {
        let levels = dropoutFreeBlocks.map { ToneAnalyzer(samples: Array($0), sampleRate: sampleRate).rmsLevel }.sorted()
        return levels.isEmpty ? nil : levels[levels.count / 2]
    }
}
