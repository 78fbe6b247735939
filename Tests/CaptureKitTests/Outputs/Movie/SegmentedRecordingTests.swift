import Foundation
import Testing
@testable import CaptureKit

/// Segmented recordings of an unpaced movie whose every frame carries its number (16 bits as
/// white blocks across the picture) over a tone: every frame in exactly one segment, in order;
/// every segment starting on a keyframe at a 2 s boundary of the wall clock and decoding alone;
/// the sound's packets adding up to a recording of the same movie in one file; the index; and
/// retention deleting the oldest segments first.
@Suite(.excludable, .serialized, .tags(.childProcess))
struct SegmentedRecordingTests {
    static let seconds = 20
    static let frameRate = 30

    /// The numbered movie: 160x120, 30 fps, 20 s, H.264 and AAC, made once.
    static func numberedMovie() throws -> URL {
        try FileFixtures.file("numbered-20s.mp4") { path in
            try FileFixtures.ffmpeg(["-f", "lavfi", "-i", "color=c=black:s=160x120:r=\(frameRate):d=\(seconds),format=yuv420p,"
                                        + "geq=lum='if(bitand(N\\,pow(2\\,floor(X/10)))\\,235\\,16)':cb=128:cr=128"]
                                    + FileFixtures.tone(seconds: Double(seconds)) + ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"], to: path)
        }
    }

    /// The frame numbers a movie's pictures carry, in presentation order (ffmpeg decoding it).
    static func frameNumbers(_ url: URL) throws -> [Int] {
        let raw = try FileFixtures.run("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:v", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        let frame = 160 * 120
        return stride(from: 0, to: raw.count - frame + 1, by: frame).map { start in
            (0..<16).reduce(0) { number, bit in raw[raw.startIndex + start + 60 * 160 + bit * 10 + 5] > 128 ? number | (1 << bit) : number }
        }
    }

    /// The audio packets in a movie (ffprobe): AAC's, 1024 samples each. (Their durations
    /// say less: a muxer shortens a file's last one to where its picture ends.)
    static func audioPackets(_ url: URL) throws -> Int {
        let text = String(decoding: try FileFixtures.run("ffprobe", ["-v", "error", "-select_streams", "a", "-count_packets", "-show_entries",
                                                                       "stream=nb_read_packets", "-of", "csv=p=0", url.path]), as: UTF8.self)
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// Records the numbered movie (played unpaced, so every frame is encoded) into `folder`
    /// with `segmentation`, or into one file when it is nil; returns the events and the movie.
    private func record(into target: URL, segmentation: MovieSegmentation?) async throws -> (events: [MovieSegmentEvent], movie: RecordedMovie) {
        var options = FileDeviceOptions(pacing: .unpaced, looping: false)
        options.uniqueID = "segments-\(UUID().uuidString.prefix(6))"
        let devices = try CaptureDevice.makeFileDevices(contentsOf: try Self.numberedMovie(), options: options)
        defer { devices.remove() }
        let movie = CaptureMovieFileOutput()
        let session = CaptureSession()
        try session.configure {
            try session.setSessionPreset(.inputPriority)
            for device in devices.all { try session.addInput(CaptureDeviceInput(device: device)) }
            try session.addOutput(movie)
        }
        let ended = Recorder<String>()
        let sessionEvents = session.events
        let watcher = Task { for await event in sessionEvents { if case .deviceReachedEnd(let id) = event { ended.append(id) } } }
        defer { watcher.cancel() }
        let events = Recorder<MovieSegmentEvent>()
        let stream = movie.segmentEvents
        let listener = Task { for await event in stream { events.append(event) } }
        defer { listener.cancel() }
        if let segmentation {
            try movie.startRecording(toFolder: target, segmentation: segmentation)
        } else {
            try movie.startRecording(to: target)
        }
        try await session.start()
        #expect(await ended.wait(timeout: .seconds(120)) { Set($0).count == 2 })
        let recorded = await movie.finishRecording()
        try await session.stop()
        #expect(recorded.error == nil, "\(String(describing: recorded.error))")
        // Every event is in once the recording is finished (the last segment with it).
        _ = await events.wait(timeout: .seconds(5)) { items in
            items.filter { if case .finished = $0 { true } else { false } }.count == items.filter { if case .started = $0 { true } else { false } }.count
        }
        return (events.items, recorded)
    }

    private static func folder(_ name: String) throws -> URL {
        let url = FileFixtures.directory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func segmentsCutOnTheClockHoldEveryFrameAndSampleOnce() async throws {
        let folder = try Self.folder("segments")
        var segmentation = MovieSegmentation()
        segmentation.duration = MediaTime(value: 2, timescale: 1)
        let (events, recorded) = try await record(into: folder, segmentation: segmentation)
        let segments = events.compactMap { if case .finished(let segment) = $0 { segment } else { nil } }
        #expect(!events.contains { if case .failed = $0 { true } else { false } }, "\(events)")
        #expect(segments.count >= 10, "\(segments.count) segments of a 20 s movie")
        #expect(recorded.url == folder && recorded.videoFrameCount == Self.seconds * Self.frameRate)

        // Every frame number once, in order, across the segments; each segment decodes alone
        // and starts with a keyframe.
        var numbers: [Int] = []
        for segment in segments {
            let decoded = try Self.frameNumbers(segment.url)
            #expect(decoded.count == segment.videoFrameCount, "\(segment.url.lastPathComponent): \(decoded.count) frames decoded")
            numbers += decoded
            let hashes = try ProbedMovie.videoPacketHashes(segment.url)
            #expect(hashes.first?.key == true, "\(segment.url.lastPathComponent) starts on a keyframe")
            let errors = try FileFixtures.run("ffmpeg", ["-v", "error", "-i", segment.url.path, "-f", "null", "-"], includingErrors: true)
            #expect(errors.isEmpty, "\(segment.url.lastPathComponent): \(String(decoding: errors, as: UTF8.self))")
        }
        #expect(numbers == Array(0..<(Self.seconds * Self.frameRate)), "frame numbers: \(numbers.count), first breaks at \(String(describing: zip(numbers, numbers.indices).first { $0 != $1 }))")

        // After the first, each segment starts at a 2 s boundary of the wall clock (within a
        // frame: the first frame at or after it), lasts 2 s, and the next starts where it ends.
        let frame = 1.0 / Double(Self.frameRate)
        for segment in segments.dropFirst() {
            let phase = segment.startDate.timeIntervalSince1970.truncatingRemainder(dividingBy: 2)
            #expect(phase < frame + 0.002, "\(segment.url.lastPathComponent) starts \(phase) s after a boundary")
        }
        for (segment, next) in zip(segments, segments.dropFirst()) {
            #expect(segment.startTime + segment.duration == next.startTime)
        }
        for segment in segments.dropFirst().dropLast() {
            #expect(abs(segment.duration.seconds - 2) < frame, "\(segment.duration.seconds) s")
        }

        // The sound: the segments' packets add up to a one-file recording of the same movie —
        // none lost at a cut, none in two segments.
        let single = MovieFiles.path("segments-whole", "mp4")
        defer { try? FileManager.default.removeItem(at: single) }
        _ = try await record(into: single, segmentation: nil)
        let perSegment = try segments.map { try Self.audioPackets($0.url) }
        let whole = try Self.audioPackets(single)
        #expect(whole > 900 && perSegment.reduce(0, +) == whole, "sound packets in the segments \(perSegment), in one file \(whole)")

        // The index lists every segment with its start and frames.
        let index = try String(contentsOf: folder.appendingPathComponent(SegmentFolder.indexName), encoding: .utf8)
        let entries = index.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(entries.compactMap { $0["file"] as? String } == segments.map(\.url.lastPathComponent))
        #expect(entries.compactMap { $0["videoFrames"] as? Int } == segments.map(\.videoFrameCount))
    }

    @Test func retentionDeletesTheOldestSegmentsFirst() async throws {
        let folder = try Self.folder("retention")
        var segmentation = MovieSegmentation()
        segmentation.duration = MediaTime(value: 2, timescale: 1)
        segmentation.maximumAge = .seconds(5)
        segmentation.fileExtension = "mkv"
        let (events, _) = try await record(into: folder, segmentation: segmentation)
        let finished = events.compactMap { if case .finished(let segment) = $0 { segment } else { nil } }
        let deleted = events.compactMap { if case .deleted(let url) = $0 { url } else { nil } }
        #expect(finished.count >= 10 && !deleted.isEmpty, "\(finished.count) finished, \(deleted.count) deleted")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".mkv") }.sorted()
        // The newest stay, the oldest went, in order: what is left is the tail of what was made.
        #expect(left == finished.suffix(left.count).map(\.url.lastPathComponent), "left \(left)")
        #expect(deleted.map(\.lastPathComponent) == finished.prefix(deleted.count).map(\.url.lastPathComponent))
        #expect(left.count >= 3 && left.count <= 4, "a 5 s age keeps 3 or 4 segments of 2 s: \(left)")
        let index = try String(contentsOf: folder.appendingPathComponent(SegmentFolder.indexName), encoding: .utf8)
        #expect(index.split(separator: "\n").count == left.count, "the index lists what is left")
    }
}
