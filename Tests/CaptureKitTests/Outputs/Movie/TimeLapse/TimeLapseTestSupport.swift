import Foundation
import Synchronization
import Testing
@testable import CaptureKit

// What the time-lapse suites share: a delegate that records every event, flat grey frames that
// say which camera frame a picture is, a device-thread output that stalls at random, and the
// movie's packets and pictures read back by ffprobe and ffmpeg.

/// Records a time-lapse delegate's calls in order and lets a test wait for the end.
final class TimeLapseRecorder: CaptureTimeLapseOutputDelegate {
    let events = Recorder<TimeLapseEvent>()

    func timeLapseOutput(_ output: CaptureTimeLapseOutput, didStartAt origin: MediaTime) { events.append(.started(origin: origin)) }
    func timeLapseOutput(_ output: CaptureTimeLapseOutput, didTake shot: TimeLapseShot) { events.append(.shotTaken(shot)) }
    func timeLapseOutput(_ output: CaptureTimeLapseOutput, didMiss miss: TimeLapseMiss) { events.append(.slotsMissed(miss)) }
    func timeLapseOutput(_ output: CaptureTimeLapseOutput, didFinishMovie movie: RecordedMovie) { events.append(.movieFinished(movie)) }
    func timeLapseOutput(_ output: CaptureTimeLapseOutput, didFinish summary: TimeLapseSummary) { events.append(.finished(summary)) }

    /// Waits for `didFinish` and returns its summary.
    func finished(timeout: Duration = .seconds(60)) async -> TimeLapseSummary? {
        _ = await events.wait(timeout: timeout) { $0.contains { if case .finished = $0 { true } else { false } } }
        return summary
    }

    var summary: TimeLapseSummary? { events.items.lazy.compactMap { if case .finished(let s) = $0 { s } else { nil } }.first }
    var origin: MediaTime? { events.items.lazy.compactMap { if case .started(let o) = $0 { o } else { nil } }.first }
    var shots: [TimeLapseShot] { events.items.compactMap { if case .shotTaken(let s) = $0 { s } else { nil } } }
    var misses: [TimeLapseMiss] { events.items.compactMap { if case .slotsMissed(let m) = $0 { m } else { nil } } }
    var movies: [RecordedMovie] { events.items.compactMap { if case .movieFinished(let m) = $0 { m } else { nil } } }
}

/// Flat grey NV12 frames, one luma level each (30, 55, 80 …), so a decoded picture's mean
/// luma says which of them it is — through JPEG and H.264 alike.
enum GreyFrames {
    static func levels(_ count: Int) -> [Int] { (0..<count).map { 30 + 25 * $0 } }

    static func make(_ count: Int, width: Int = 160, height: Int = 120) throws -> [PixelBuffer] {
        try levels(count).map { level in
            try PixelBuffer(width: width, height: height, pixelFormat: .nv12) { plane, bytes, _ in
                bytes.initializeMemory(as: UInt8.self, repeating: plane == 0 ? UInt8(level) : 128)
            }
        }
    }

    /// Which level (index) a luma mean is nearest to.
    static func index(ofMean mean: Double, count: Int) -> Int {
        levels(count).enumerated().min { abs(Double($0.element) - mean) < abs(Double($1.element) - mean) }!.offset
    }
}

/// A movie's video packets (presentation times in seconds, by ffprobe) and the mean luma of
/// each decoded picture (by ffmpeg), in presentation order.
struct TimeLapseMovieReading {
    var packetTimes: [Double]
    var frameRate: String
    var lumaMeans: [Double]

    init(_ path: String, width: Int, height: Int, decoding: Bool = true) throws {
        let probe = try FileFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=r_frame_rate:packet=pts_time",
                                                     "-of", "json", path])
        let json = try #require(try JSONSerialization.jsonObject(with: probe) as? [String: Any])
        packetTimes = (json["packets"] as? [[String: Any]] ?? []).compactMap { Double($0["pts_time"] as? String ?? "") }.sorted()
        frameRate = ((json["streams"] as? [[String: Any]])?.first?["r_frame_rate"] as? String) ?? "?"
        guard decoding else {
            lumaMeans = []
            return
        }
        let raw = try FileFixtures.run("ffmpeg", ["-v", "error", "-nostdin", "-i", path, "-vsync", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        let size = width * height
        lumaMeans = stride(from: 0, to: raw.count - size + 1, by: size).map { start in
            Double(raw[start..<(start + size)].reduce(0) { $0 + Int($1) }) / Double(size)
        }
    }
}

/// The mean luma of a JPEG file, decoded by ffmpeg.
func jpegLumaMean(_ path: String, in scratch: PhotoScratch) throws -> Double {
    let (width, height, bytes) = try PhotoTools.decodeYUV420(path, in: scratch)
    let luma = lumaPlane(bytes, width: width, height: height)
    return Double(luma.reduce(0) { $0 + Int($1) }) / Double(luma.count)
}

/// exiftool's capture date of a photo: DateTimeOriginal, SubSecTimeOriginal and
/// OffsetTimeOriginal as one instant.
func exifCaptureDate(_ path: String, in scratch: PhotoScratch) throws -> Date {
    let tags = try PhotoTools.exif(path, in: scratch)
    let text = try #require(tags["DateTimeOriginal"] as? String)
    let subSeconds = tags["SubSecTimeOriginal"].map { "\($0)" } ?? "0"
    let offset = try #require(tags["OffsetTimeOriginal"] as? String)
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyy:MM:dd HH:mm:ssxxx"
    let date = try #require(formatter.date(from: text + offset), "\(text)\(offset)")
    let fraction = Double("0." + subSeconds.filter(\.isNumber)) ?? 0
    return date.addingTimeInterval(fraction)
}

/// An output on the device thread that stalls it at random (seeded) and keeps every capture
/// time it saw: the frames the time-lapse output was offered, since both hang on one route.
final class StallingOutput: CaptureOutput, @unchecked Sendable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    private struct State {
        var random: SeededGenerator
        var seen: [MediaTime] = []
    }
    private let state: Mutex<State>
    /// One frame in `oneIn` stalls the thread for up to `longest`; frame `forcedAt` for `forced`.
    private let oneIn: UInt64
    private let longest: Duration
    private let forcedAt: Int
    private let forced: Duration

    init(seed: UInt64, oneIn: UInt64, longest: Duration, forcedAt: Int, forced: Duration) {
        state = Mutex(State(random: SeededGenerator(seed: seed)))
        self.oneIn = oneIn
        self.longest = longest
        self.forcedAt = forcedAt
        self.forced = forced
        super.init()
    }

    var seen: [MediaTime] { state.withLock { $0.seen } }

    override var acceptedMediaTypes: Set<MediaType> { [.video] }

    override func receive(_ sample: SampleBuffer, from connection: CaptureConnection) {
        let stall = state.withLock { state -> Duration in
            state.seen.append(sample.presentationTimeStamp)
            if state.seen.count == forcedAt { return forced }
            guard state.random.next() % oneIn == 0 else { return .zero }
            let milliseconds = longest.components.seconds * 1000 + longest.components.attoseconds / 1_000_000_000_000_000
            return .milliseconds(Int64(state.random.next() % UInt64(max(1, milliseconds))))
        }
        if stall > .zero {
            let microseconds = stall.components.seconds * 1_000_000 + stall.components.attoseconds / 1_000_000_000_000
            usleep(UInt32(microseconds))
        }
    }

    override func deviceDidDrop(count: Int, from connection: CaptureConnection) {}
}
