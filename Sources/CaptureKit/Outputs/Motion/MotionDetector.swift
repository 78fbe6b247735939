import CMotionKernels

/// Finds what moved in a small grey picture (a frame's luma, downscaled once), frame after
/// frame, against a background it keeps: the motion output's engine, without threads or
/// sessions, so tests drive it with scripted pictures.
///
/// Each frame is compared with the background after removing the picture's overall change
/// (the median difference: a light dimming or brightening moves every pixel alike), against a
/// threshold above the picture's own noise (the spread of the differences around that median,
/// followed over the frames without motion). Changed pixels are grouped into 8-connected
/// blobs; specks smaller than ``minimumBlobPixels`` are sensor noise. The background follows
/// the picture (``backgroundRate`` per frame where nothing changed, a tenth of it where
/// something did), so slow light changes never add up to motion and a thing that stops
/// becomes background.
struct MotionDetector {
    /// How sensitive the detection is, 0...1, and what that means for the threshold.
    struct Sensitivity: Sendable, Hashable {
        var value: Double

        /// The smallest difference counted (grey levels), whatever the noise: 28 at 0, 4 at 1.
        var floor: Float { Float(4 + 24 * (1 - value)) }
        /// How many noise deviations a difference must exceed: 9 at 0, 3 at 1.
        var noiseFactor: Float { Float(3 + 6 * (1 - value)) }
    }

    /// What one frame showed.
    struct Analysis: Sendable, Equatable {
        /// The changed share of the watched picture (the blobs kept), 0...1.
        var score: Double
        /// The blobs kept, largest first, in analysis pixels.
        var blobs: [PixelRect]
        /// Whether the score reached the minimum changed area.
        var isMotion: Bool
    }

    let width: Int
    let height: Int
    var sensitivity = Sensitivity(value: 0.5)
    /// The share of the watched picture that must change for motion, 0...1.
    var minimumChangedArea = 0.005
    /// Blobs smaller than this many analysis pixels are noise.
    var minimumBlobPixels = 3
    /// How fast the background follows the picture where nothing changed (per frame).
    var backgroundRate: Float = 0.05
    /// Frames that only learn the background, after the first or a reset.
    var warmUpFrames = 3

    private var background: [Float]
    /// One factor per pixel: 0 not watched, 1 watched at ``sensitivity``, more where a region
    /// is more sensitive (see ``setWeights(_:)``).
    private var weights: [Float]
    private var watchedPixels: Int
    private var changed: [UInt8]
    private var histogram = [UInt32](repeating: 0, count: 511)
    /// The picture's noise (standard deviation of a pixel's difference, grey levels), followed
    /// over frames without motion.
    private(set) var noise: Float = 1
    private var framesSeen = 0

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        background = [Float](repeating: 0, count: width * height)
        weights = [Float](repeating: 1, count: width * height)
        watchedPixels = width * height
        changed = [UInt8](repeating: 0, count: width * height)
    }

    /// Sets the per-pixel factors (row-major, `width × height`): 0 leaves a pixel unwatched.
    mutating func setWeights(_ weights: [Float]) {
        precondition(weights.count == width * height, "one weight per analysis pixel")
        self.weights = weights
        watchedPixels = weights.reduce(0) { $0 + ($1 > 0 ? 1 : 0) }
    }

    /// Forgets the background: the next frames learn it again (after a restart or a gap).
    mutating func reset() { framesSeen = 0 }

    /// Compares `frame` (`width × height` grey pixels, row-major, no padding) with the
    /// background, then updates the background.
    mutating func analyze(_ frame: [UInt8]) -> Analysis {
        precondition(frame.count == width * height, "one byte per analysis pixel")
        let count = frame.count
        defer { framesSeen += 1 }
        guard framesSeen > 0 else {
            ck_motion_reset_background(&background, frame, count)
            return Analysis(score: 0, blobs: [], isMotion: false)
        }
        ck_motion_difference_histogram(frame, background, weights, count, &histogram)
        let (offset, spread) = Self.medianAndDeviation(histogram)
        let threshold = max(sensitivity.floor, sensitivity.noiseFactor * noise)
        let marked = ck_motion_mark_changes(frame, background, weights, count, offset, threshold, &changed)
        let blobs = marked == 0 ? [] : keptBlobs()
        let area = blobs.reduce(0) { $0 + $1.pixels }
        let score = watchedPixels > 0 ? Double(area) / Double(watchedPixels) : 0
        let warmingUp = framesSeen < warmUpFrames
        let isMotion = !warmingUp && area > 0 && score >= minimumChangedArea
        // The noise follows frames without motion only: a moving thing is not noise.
        if !isMotion { noise += (warmingUp ? 0.5 : 0.05) * (max(spread, 0.5) - noise) }
        let rate = warmingUp ? max(backgroundRate, 0.5) : backgroundRate
        ck_motion_update_background(&background, frame, changed, count, rate, rate / 10)
        return Analysis(score: score, blobs: isMotion ? blobs.map(\.rect) : [], isMotion: isMotion)
    }

    /// The median of the differences and their standard deviation around it, estimated from
    /// the median absolute deviation (robust against the few pixels that moved).
    private static func medianAndDeviation(_ histogram: [UInt32]) -> (median: Float, deviation: Float) {
        let total = histogram.reduce(0) { $0 + Int($1) }
        guard total > 0 else { return (0, 0) }
        var seen = 0, median = 0
        for (bin, count) in histogram.enumerated() {
            seen += Int(count)
            if seen * 2 >= total { median = bin; break }
        }
        // Pixels at each distance from the median bin, in order, until half are counted.
        seen = Int(histogram[median])
        var distance = 0
        while seen * 2 < total, distance < 511 {
            distance += 1
            if median - distance >= 0 { seen += Int(histogram[median - distance]) }
            if median + distance < 511 { seen += Int(histogram[median + distance]) }
        }
        return (Float(median - 255), Float(distance) * 1.4826)
    }

    private struct Blob {
        var rect: PixelRect
        var pixels: Int
    }

    /// The 8-connected groups of changed pixels, specks dropped, largest first.
    private mutating func keptBlobs() -> [Blob] {
        var blobs: [Blob] = []
        var stack: [Int] = []
        let width = width, height = height, minimum = minimumBlobPixels
        changed.withUnsafeMutableBufferPointer { mask in
            for start in 0..<mask.count where mask[start] == 1 {
                mask[start] = 2   // 2: labelled
                stack.append(start)
                var pixels = 0, minX = width, minY = height, maxX = -1, maxY = -1
                while let index = stack.popLast() {
                    let x = index % width, y = index / width
                    pixels += 1
                    minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                    for dy in -1...1 {
                        let ny = y + dy
                        guard ny >= 0, ny < height else { continue }
                        for dx in -1...1 {
                            let nx = x + dx
                            guard nx >= 0, nx < width else { continue }
                            let neighbour = ny * width + nx
                            if mask[neighbour] == 1 {
                                mask[neighbour] = 2
                                stack.append(neighbour)
                            }
                        }
                    }
                }
                if pixels >= minimum {
                    blobs.append(Blob(rect: PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1), pixels: pixels))
                }
            }
            // The background update reads 1 as changed.
            for index in 0..<mask.count where mask[index] == 2 { mask[index] = 1 }
        }
        return blobs.sorted { $0.pixels > $1.pixels }
    }
}
