import Foundation
import Testing
@testable import CaptureKit

/// A time-lapse from an unpaced virtual camera, where capture times are exact: every slot is
/// the camera frame captured exactly on it, the movie has one frame per shot at the set rate,
/// each the picture of its slot, and the library's photos carry their slots' EXIF dates.
@Suite(.tags(.childProcess), .excludable)
struct TimeLapseOutputTests {
    /// Seven grey levels: the camera's frame n shows level n mod 7, so frame 30k (slot k at
    /// 1 s and 30 fps) shows level 2k mod 7, and a neighbouring frame would show another.
    private let levels = 7

    private func camera(_ label: String) throws -> CaptureDevice {
        let frames = try GreyFrames.make(levels)
        return try makeTestCamera(label) {
            $0.sizes = [.init(width: 160, height: 120)]
            $0.pixelFormats = [.nv12]
            $0.frameRates = [30]
            $0.content = .frames(frames)
            $0.pacing = .unpaced
        }
    }

    @Test func everyShotIsTheFrameOfItsSlotInTheMovieAndTheLibrary() async throws {
        let scratch = try PhotoScratch()
        let camera = try camera("timelapse")
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let timeLapse = CaptureTimeLapseOutput()
        timeLapse.maxShotCount = 20
        let session = try makeSession(camera: camera, outputs: [timeLapse])
        let library = try MediaLibrary(root: URL(fileURLWithPath: scratch.path + "/library"))
        let movieURL = URL(fileURLWithPath: scratch.path + "/timelapse.mp4")
        let recorder = TimeLapseRecorder()
        // Armed before the session starts: slot 0 is the camera's first frame.
        try timeLapse.start(TimeLapseSchedule(every: MediaTime(value: 1, timescale: 1)), photos: .library(library),
                            movie: TimeLapseMovie(url: movieURL), delegate: recorder)
        #expect(timeLapse.isRunning)
        try await session.start()
        let summary = try #require(await recorder.finished(), "the time-lapse never finished")
        try await session.stop()

        #expect(summary.error == nil)
        #expect(summary.statistics.shots == 20 && summary.statistics.missedSlots == 0)
        #expect(recorder.misses.isEmpty, "an unpaced camera is held back: no slot is missed")
        let origin = try #require(recorder.origin)
        let shots = recorder.shots
        try #require(shots.count == 20)
        for (k, shot) in shots.enumerated() {
            #expect(shot.slot == k && shot.movieFrame == k)
            #expect(shot.slotTime == origin + MediaTime(value: Int64(k), timescale: 1), "no drift")
            #expect(shot.captureTime == shot.slotTime, "the camera's frame 30k is captured exactly at slot k")
        }

        // The movie: 20 frames at 30 fps, frame k at k/30 s showing slot k's picture.
        let movie = try #require(summary.movie)
        #expect(movie.error == nil && movie.videoFrameCount == 20)
        #expect(recorder.movies.count == 1)
        let reading = try TimeLapseMovieReading(movieURL.path, width: 160, height: 120)
        #expect(reading.frameRate == "30/1")
        #expect(reading.packetTimes.count == 20)
        for (k, time) in reading.packetTimes.enumerated() { #expect(abs(time - Double(k) / 30) < 0.001, "packet \(k) at \(time)") }
        try #require(reading.lumaMeans.count == 20)
        for (k, mean) in reading.lumaMeans.enumerated() {
            #expect(GreyFrames.index(ofMean: mean, count: levels) == (30 * k) % levels, "movie frame \(k): luma \(mean)")
        }

        // The photos: in the library, the slot's picture, dated by EXIF exactly 1 s apart.
        #expect(try library.assets(kind: .photo).count == 20)
        var dates: [Date] = []
        for (k, shot) in shots.enumerated() {
            let asset = try #require(shot.asset)
            #expect(shot.photoURL == asset.fileURL)
            #expect(GreyFrames.index(ofMean: try jpegLumaMean(asset.fileURL.path, in: scratch), count: levels) == (30 * k) % levels)
            dates.append(try exifCaptureDate(asset.fileURL.path, in: scratch))
            #expect(abs(dates[k].timeIntervalSince(shot.date)) < 0.001, "EXIF date is the shot's date")
        }
        for (k, date) in dates.enumerated() {
            #expect(abs(date.timeIntervalSince(dates[0]) - Double(k)) < 0.0015, "photo \(k) is dated \(k) s after the first")
        }
        #expect(abs(dates[0].timeIntervalSinceNow) < 600, "dated by the wall clock")
    }

    @Test func photosGoIntoAFolderNamedByTimeAndTheLimitIsADuration() async throws {
        let scratch = try PhotoScratch()
        let camera = try camera("timelapse-folder")
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let timeLapse = CaptureTimeLapseOutput()
        timeLapse.maxDuration = MediaTime(value: 3, timescale: 1)
        let session = try makeSession(camera: camera, outputs: [timeLapse])
        let recorder = TimeLapseRecorder()
        try timeLapse.start(TimeLapseSchedule(every: MediaTime(value: 500, timescale: 1000)), photos: .folder(URL(fileURLWithPath: scratch.path)),
                            delegate: recorder)
        try await session.start()
        let summary = try #require(await recorder.finished())
        try await session.stop()
        #expect(summary.error == nil && summary.movie == nil)
        #expect(recorder.shots.map(\.slot) == Array(0..<6), "3 s every 0.5 s: slots 0…5")
        let files = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasSuffix(".jpg") }.sorted()
        #expect(files.count == 6)
        #expect(files == recorder.shots.compactMap { $0.photoURL?.lastPathComponent }, "names sort by capture time")
        #expect(try !FileManager.default.contentsOfDirectory(atPath: scratch.path).contains { $0.hasSuffix(".partial") })
    }

    @Test func whatCannotWorkIsRefusedUpFront() throws {
        let scratch = try PhotoScratch()
        let camera = try camera("timelapse-refusals")
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let loose = CaptureTimeLapseOutput()
        let every = TimeLapseSchedule(every: MediaTime(value: 1, timescale: 1))
        #expect(throws: CaptureError.self) { try loose.start(every, photos: .folder(URL(fileURLWithPath: scratch.path))) }
        let timeLapse = CaptureTimeLapseOutput()
        let session = try makeSession(camera: camera, outputs: [timeLapse])
        defer { withExtendedLifetime(session) {} }
        func code(_ body: () throws -> Void) -> CaptureError.Code? {
            do { try body(); return nil } catch { return (error as? CaptureError)?.code }
        }
        #expect(code { try timeLapse.start(every) } == .invalidArgument, "nothing to make")
        #expect(code { try timeLapse.start(TimeLapseSchedule(every: .zero), photos: .folder(URL(fileURLWithPath: scratch.path))) } == .invalidArgument)
        #expect(code { try timeLapse.start(every, photos: .folder(URL(fileURLWithPath: scratch.path + "/missing"))) } == .fileError)
        let existing = try scratch.write(Data([1]), as: "taken.mp4")
        #expect(code { try timeLapse.start(every, movie: TimeLapseMovie(url: URL(fileURLWithPath: existing))) } == .fileError)
        #expect(code { try timeLapse.start(every, movie: TimeLapseMovie(url: URL(fileURLWithPath: scratch.path + "/x.avi"))) } == .unsupportedFormat)
        #expect(code { try timeLapse.start(every, movie: TimeLapseMovie(url: URL(fileURLWithPath: scratch.path + "/x.mp4"), framesPerSecond: 0)) } == .invalidArgument)
        #expect(!timeLapse.isRunning)
    }
}

extension RealTimeCaptureTests {
    /// The acceptance test: 100 shots from a real-time camera whose device thread stalls at
    /// random. Capture times decide, not delivery: a short stall that the camera catches up on
    /// loses no slot; a long one loses frames, and the slots in that gap are skipped and
    /// counted, while every shot stays exactly on the grid.
    @Suite(.serialized, .tags(.childProcess))
    struct TimeLapseStallTests {
        @Test func hundredShotsOnScheduleWithTheDeviceThreadDelayedAtRandom() async throws {
            let scratch = try PhotoScratch()
            let camera = try makeTestCamera("timelapse-stall") {
                $0.sizes = [.init(width: 160, height: 120)]
                $0.pixelFormats = [.nv12]
                $0.frameRates = [30]
            }
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let interval = MediaTime(value: 100, timescale: 1000)
            let timeLapse = CaptureTimeLapseOutput()
            timeLapse.maxShotCount = 100
            // One frame in 12 stalls the device thread for up to 250 ms; frame 40 for 600 ms, so
            // at least one gap in capture covers a slot and its tolerance.
            let staller = StallingOutput(seed: 19, oneIn: 12, longest: .milliseconds(250), forcedAt: 40, forced: .milliseconds(600))
            let session = try makeSession(camera: camera, outputs: [timeLapse, staller])
            let movieURL = URL(fileURLWithPath: scratch.path + "/stalled.mp4")
            let recorder = TimeLapseRecorder()
            let schedule = TimeLapseSchedule(every: interval)
            try timeLapse.start(schedule, movie: TimeLapseMovie(url: movieURL), delegate: recorder)
            try await session.start()
            let summary = try #require(await recorder.finished(timeout: .seconds(90)), "the time-lapse never finished")
            try await session.stop()

            let tolerance = schedule.tolerance(forFrameDuration: MediaTime(value: 1, timescale: 30))
            #expect(tolerance == MediaTime(value: 50, timescale: 1000))
            let origin = try #require(recorder.origin)
            let shots = recorder.shots, misses = recorder.misses
            #expect(summary.error == nil)
            #expect(shots.count == 100 && summary.statistics.shots == 100)
            let late = misses.filter { $0.reason == .late }
            #expect(!late.isEmpty, "the 600 ms stall lost frames, so a slot was late")
            #expect(summary.statistics.missedSlots == misses.reduce(0) { $0 + $1.count })
            // Every slot up to the last shot is taken or missed, exactly once, in order.
            let decided = (shots.map(\.slot) + misses.flatMap { Array($0.slots) }).sorted()
            #expect(decided == Array(0..<decided.count))
            let seen = staller.seen
            for shot in shots {
                #expect(shot.slotTime == origin + interval * Int64(shot.slot), "no drift: slot \(shot.slot)")
                #expect(shot.captureTime >= shot.slotTime && shot.captureTime <= shot.slotTime + tolerance, "slot \(shot.slot) within tolerance")
                #expect(seen.first { $0 >= shot.slotTime } == shot.captureTime, "slot \(shot.slot): the first frame at or after it")
            }
            for miss in late {
                for slot in miss.slots {
                    let due = origin + interval * Int64(slot)
                    #expect(!seen.contains { $0 >= due && $0 <= due + tolerance }, "late slot \(slot) had no frame in time")
                }
            }
            // The movie keeps the schedule: shot k's frame at (slot k − slot 0) / 30 s.
            let movie = try #require(summary.movie)
            #expect(movie.error == nil && movie.videoFrameCount == 100)
            let reading = try TimeLapseMovieReading(movieURL.path, width: 160, height: 120)
            #expect(reading.packetTimes.count == 100)
            for (shot, time) in zip(shots, reading.packetTimes) {
                #expect(abs(time - Double(shot.slot - shots[0].slot) / 30) < 0.001, "slot \(shot.slot)'s frame at \(time) s")
                #expect(shot.movieFrame == shot.slot - shots[0].slot)
            }
        }
    }
}
