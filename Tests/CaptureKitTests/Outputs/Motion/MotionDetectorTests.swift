import Foundation
import Testing
@testable import CaptureKit

/// The motion output's engine on scripted scenes at the analysis size (160×90), frame by frame:
/// what it must find, and what it must never call motion.
@Suite(.excludable)
struct MotionDetectorTests {
    static let width = 160, height = 90

    /// An object of 16×12 pixels (1.3 % of the picture) at (100, 40) from frame 30 on.
    static let object = MotionScene.Object(x: 100, y: 40, width: 16, height: 12, level: 230, frames: 30..<1_000)

    private func run(_ scene: MotionScene, frames: Range<Int>, detector: inout MotionDetector) -> [(Int, MotionDetector.Analysis)] {
        frames.map { ($0, detector.analyze(scene.frame($0))) }
    }

    @Test func anObjectThatAppearsIsFoundInTheFrameItAppearsWithABoxAroundIt() throws {
        var scene = MotionScene(width: Self.width, height: Self.height)
        scene.objects = [Self.object]
        var detector = MotionDetector(width: Self.width, height: Self.height)
        let results = run(scene, frames: 0..<40, detector: &detector)
        let first = try #require(results.first { $0.1.isMotion })
        #expect(first.0 == 30, "the object appeared in frame 30; motion was first found in frame \(first.0)")
        let box = try #require(first.1.blobs.first)
        #expect(box == PixelRect(x: 100, y: 40, width: 16, height: 12), "\(box)")
        #expect(first.1.blobs.count == 1, "\(first.1.blobs)")
        #expect(abs(first.1.score - 192.0 / Double(Self.width * Self.height)) < 1e-9)
    }

    /// Ten minutes at 30 fps of a still scene with noise of 2 grey levels (what a camera's
    /// noise of ~25 levels becomes once averaged down to 160 pixels wide, and more), hot and
    /// dead pixels, and the light rising by 80 grey levels and falling back: no frame is motion.
    @Test func tenMinutesOfNoiseAndASlowLightRampGiveNoMotion() {
        var scene = MotionScene(width: Self.width, height: Self.height, noise: 2)
        scene.speckEvery = 2_000
        let frames = 18_000
        scene.brightness = { index in 80 * sin(Double.pi * Double(index) / Double(frames)) }
        var detector = MotionDetector(width: Self.width, height: Self.height)
        var motion: [Int] = []
        for index in 0..<frames where detector.analyze(scene.frame(index)).isMotion { motion.append(index) }
        #expect(motion.isEmpty, "\(motion.count) frames with motion, the first \(motion.prefix(5))")
    }

    @Test func theLightSwitchedOnAtOnceIsNotMotion() {
        var scene = MotionScene(width: Self.width, height: Self.height)
        scene.brightness = { $0 >= 30 ? 40 : 0 }
        var detector = MotionDetector(width: Self.width, height: Self.height)
        let motion = run(scene, frames: 0..<120, detector: &detector).filter { $0.1.isMotion }.map(\.0)
        #expect(motion.isEmpty, "\(motion)")
    }

    @Test func anIgnoredRegionNeverTriggersAndTheRestStillDoes() {
        var scene = MotionScene(width: Self.width, height: Self.height)
        // One object comes and goes inside the ignored region, another appears outside it later.
        scene.objects = [MotionScene.Object(x: 10, y: 10, width: 30, height: 20, level: 240, frames: 20..<60),
                         MotionScene.Object(x: 10, y: 10, width: 30, height: 20, level: 20, frames: 80..<120),
                         MotionScene.Object(x: 120, y: 60, width: 20, height: 20, level: 240, frames: 150..<200)]
        var detector = MotionDetector(width: Self.width, height: Self.height)
        var weights = [Float](repeating: 1, count: Self.width * Self.height)
        for y in 5..<40 { for x in 5..<50 { weights[y * Self.width + x] = 0 } }
        detector.setWeights(weights)
        let motion = run(scene, frames: 0..<200, detector: &detector).filter { $0.1.isMotion }.map(\.0)
        #expect(motion.first == 150, "\(motion.prefix(5))")
    }

    @Test func aFaintChangeCountsOnlyWhereTheRegionIsMoreSensitive() {
        // 10 grey levels above the background: below the default floor of 16 levels.
        func faint(_ x: Int) -> MotionScene.Object { .init(x: x, y: 30, width: 20, height: 20, level: 0, frames: 20..<100) }
        var scene = MotionScene(width: Self.width, height: Self.height, noise: 1)
        scene.objects = [faint(20), faint(110)]
        // Objects take the texture's value plus 10 where they are.
        let faintScene = FaintScene(scene: scene, lift: 10)
        var detector = MotionDetector(width: Self.width, height: Self.height)
        let plain = [Float](repeating: 1, count: Self.width * Self.height)
        var sensitiveLeft = plain
        let sensitive = MotionDetector.Sensitivity(value: 0.5).floor / MotionDetector.Sensitivity(value: 1).floor
        for y in 0..<Self.height { for x in 0..<80 { sensitiveLeft[y * Self.width + x] = sensitive } }
        detector.setWeights(plain)
        let unseen = (0..<60).map { detector.analyze(faintScene.frame($0)) }.filter(\.isMotion)
        #expect(unseen.isEmpty)
        detector = MotionDetector(width: Self.width, height: Self.height)
        detector.setWeights(sensitiveLeft)
        let seen = (0..<60).map { ($0, detector.analyze(faintScene.frame($0))) }.filter { $0.1.isMotion }
        #expect(seen.first?.0 == 20)
        #expect(seen.first?.1.blobs.allSatisfy { $0.x < 80 } == true, "\(String(describing: seen.first?.1.blobs))")
    }

    @Test func aThingThatStopsBecomesBackground() {
        var scene = MotionScene(width: Self.width, height: Self.height)
        scene.objects = [Self.object]
        var detector = MotionDetector(width: Self.width, height: Self.height)
        let motion = run(scene, frames: 0..<600, detector: &detector).filter { $0.1.isMotion }.map(\.0)
        #expect(motion.first == 30)
        // At a tenth of 5 % per frame it takes a few hundred frames; then it is quiet.
        #expect((motion.last ?? .max) < 500, "still motion at frame \(motion.last ?? -1)")
    }

    @Test func episodesBeginChangeAndEndAfterTheQuietPeriod() {
        let frame = MediaTime(value: 1, timescale: 30)
        var episode = MotionEpisode(quietPeriod: MediaTime(value: 1, timescale: 2))
        var phases: [(Int, MotionEvent.Phase)] = []
        // Motion in frames 10...19 and 25...29 (a pause shorter than the quiet period), then none.
        for index in 0..<60 {
            let motion = (10..<20).contains(index) || (25..<30).contains(index)
            if let phase = episode.frame(at: frame * Int64(index), motion: motion) { phases.append((index, phase)) }
        }
        #expect(phases.first.map { $0.0 == 10 && $0.1 == .began } == true)
        #expect(phases.filter { $0.1 == .began }.count == 1)
        #expect(phases.filter { $0.1 == .changed }.count == 14)
        // The last motion is frame 29; half a second later is frame 44.
        #expect(phases.last.map { $0.0 == 44 && $0.1 == .ended } == true, "\(phases.suffix(2))")
        #expect(!episode.isActive && !episode.end())
    }
}

/// A scene whose objects are the background lifted by a few grey levels, not a flat colour.
private struct FaintScene {
    let scene: MotionScene
    let lift: Int

    func frame(_ index: Int) -> [UInt8] {
        var plain = scene
        let objects = plain.objects
        plain.objects = []
        var pixels = plain.frame(index)
        for object in objects where object.frames.contains(index) {
            for y in object.y..<(object.y + object.height) {
                for x in object.x..<(object.x + object.width) {
                    pixels[y * scene.width + x] = UInt8(clamping: Int(pixels[y * scene.width + x]) + lift)
                }
            }
        }
        return pixels
    }
}
