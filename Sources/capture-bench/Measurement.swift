/// One row of a benchmark's table: one case measured once, by CaptureKit or by the peer tool.
struct Measurement: Sendable {
    /// What was run ("CaptureKit, 3 outputs", "ffmpeg rawvideo -> null").
    var label: String
    /// Who ran it: "CaptureKit" or the peer tool's command name.
    var tool: String
    /// Frames the job went through (for CaptureKit: produced by the device).
    var frames: Int
    /// Frames handed to consumers, summed over outputs (nil where it does not apply).
    var delivered: Int?
    /// Frames outputs reported as dropped, summed over outputs (nil where it does not apply).
    var dropped: Int?
    /// Frames the outputs' statistics do not account for once the session has stopped and the
    /// outputs have drained: frames produced × outputs − (delivered + dropped). Should be 0.
    var unaccounted: Int?
    /// Wall time of the measured window.
    var wallSeconds: Double
    /// User + system CPU time of the measured window.
    var cpuSeconds: Double
    /// Peak resident set size in bytes, nil when unknown.
    var peakRSSBytes: Int?
    /// What ``peakRSSBytes`` covers ("case" when measured for this case alone, "process" when
    /// it is the whole process's peak so far, "child" for a peer tool).
    var peakRSSScope: String
    /// This row's CPU per frame divided by the peer tool's; set by the benchmark.
    var cpuRatio: Double?

    var framesPerSecond: Double { wallSeconds > 0 ? Double(frames) / wallSeconds : 0 }

    var cpuNanosecondsPerFrame: Double { frames > 0 ? cpuSeconds * 1e9 / Double(frames) : 0 }

    /// CPU per frame a consumer actually received (nil when nothing was delivered).
    var cpuNanosecondsPerDelivery: Double? {
        guard let delivered, delivered > 0 else { return nil }
        return cpuSeconds * 1e9 / Double(delivered)
    }

    var peakRSSMiB: Double? { peakRSSBytes.map { Double($0) / 1_048_576 } }
}

extension Measurement: Encodable {
    private enum CodingKeys: String, CodingKey {
        case label, tool, frames, delivered, dropped, unaccounted, wallSeconds, cpuSeconds, framesPerSecond
        case cpuNanosecondsPerFrame, cpuNanosecondsPerDelivery, cpuRatio, peakRSSMiB, peakRSSScope
    }

    func encode(to encoder: any Encoder) throws {
        // The derived figures are encoded too, so JSON readers need not recompute the table.
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(label, forKey: .label)
        try container.encode(tool, forKey: .tool)
        try container.encode(frames, forKey: .frames)
        try container.encodeIfPresent(delivered, forKey: .delivered)
        try container.encodeIfPresent(dropped, forKey: .dropped)
        try container.encodeIfPresent(unaccounted, forKey: .unaccounted)
        try container.encode(wallSeconds, forKey: .wallSeconds)
        try container.encode(cpuSeconds, forKey: .cpuSeconds)
        try container.encode(framesPerSecond, forKey: .framesPerSecond)
        try container.encode(cpuNanosecondsPerFrame, forKey: .cpuNanosecondsPerFrame)
        try container.encodeIfPresent(cpuNanosecondsPerDelivery, forKey: .cpuNanosecondsPerDelivery)
        try container.encodeIfPresent(cpuRatio, forKey: .cpuRatio)
        try container.encodeIfPresent(peakRSSMiB, forKey: .peakRSSMiB)
        try container.encode(peakRSSScope, forKey: .peakRSSScope)
    }
}
