import CaptureKit

/// vivid's "75% Colorbar" test pattern (its default): eight vertical bars of equal width —
/// white, yellow, cyan, green, magenta, red, blue, black — at 75 % intensity (191 of 255).
/// Frames are checked at sampled pixels only: per-pixel loops in a debug build are ~100× slower
/// under the VM's software emulation.
enum ColorBarPattern {
    /// The bars' colours, left to right, as full-range RGB.
    static let bars: [(name: String, rgb: (Int, Int, Int))] = [
        ("white", (191, 191, 191)), ("yellow", (191, 191, 0)), ("cyan", (0, 191, 191)), ("green", (0, 191, 0)),
        ("magenta", (191, 0, 191)), ("red", (191, 0, 0)), ("blue", (0, 0, 191)), ("black", (0, 0, 0)),
    ]

    /// Points well inside each bar (a quarter bar from its edges), on three rows.
    static func samplePoints(width: Int, height: Int) -> [(x: Int, y: Int, bar: Int)] {
        let barWidth = width / bars.count
        var points: [(x: Int, y: Int, bar: Int)] = []
        for bar in bars.indices {
            for x in [bar * barWidth + barWidth / 4, bar * barWidth + barWidth / 2, bar * barWidth + 3 * barWidth / 4] {
                for y in [height / 5, height / 2, 4 * height / 5] { points.append((x, y, bar)) }
            }
        }
        return points
    }

    /// The largest per-channel distance between the RGB at `point` and its bar's colour.
    static func distance(_ rgb: (Int, Int, Int), toBar bar: Int) -> Int {
        let want = bars[bar].rgb
        return max(abs(rgb.0 - want.0), abs(rgb.1 - want.1), abs(rgb.2 - want.2))
    }

    /// What is wrong with `frame` at the sample points: a pixel that is not its bar's colour, or
    /// whose stored components differ from `reference`'s (the same frame as `referenceName`
    /// received it). Empty when the frame is right.
    static func mismatches(in frame: PixelSampler, reference: PixelSampler, referenceName: String) -> [String] {
        var mismatches: [String] = []
        for point in samplePoints(width: frame.width, height: frame.height) {
            guard let rgb = frame.rgb(x: point.x, y: point.y), let stored = frame.components(x: point.x, y: point.y) else {
                mismatches.append("(\(point.x),\(point.y)) unreadable"); continue
            }
            if distance(rgb, toBar: point.bar) > 24 {
                mismatches.append("(\(point.x),\(point.y)) \(rgb) is not \(bars[point.bar].name)")
            }
            let expected = reference.components(x: point.x, y: point.y)
            if expected.map({ $0 != stored }) ?? true {
                mismatches.append("(\(point.x),\(point.y)) \(stored) but \(referenceName) got \(String(describing: expected))")
            }
        }
        return mismatches
    }
}
