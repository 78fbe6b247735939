import Foundation
import Testing
@testable import CaptureKit

/// A movie recorded from a VM camera beside a video data output that sees the same frames (the
/// witness): the witness's log says which sequence numbers the device produced and when each
/// was captured, the file's packet times say which of them the movie holds. ``account`` puts
/// the two together.
struct WitnessedRecording {
    /// The file.
    var url: URL
    /// What the recording delegate heard.
    var calls: [RecordingRecorder.Call]
    /// The finished recording as the movie output reports it (frames written, drops).
    var movie: RecordedMovie?
    /// The witness's log: every frame delivered or reported dropped, in order, from before the
    /// recording started to after it finished.
    var witness: [DeliveryEvent]
    /// The last sequence number the witness had been handed when `startRecording` was called:
    /// that frame reached the movie output before the recording existed, so it cannot be in it.
    var lastBeforeStart: UInt64?
    /// The file's video packet times in seconds, in presentation order, from its first.
    var packetTimes: [Double]
    /// The capture time of the file's first frame, as the delegate heard it (`startPTS`).
    var startTime: MediaTime?

    /// Records up to `seconds` (the movie's maximum duration) from `device` with `settings`.
    /// The witness keeps late frames (up to its queue depth) so that nearly every frame the
    /// movie gets is also one it delivers, with its sequence number.
    static func record(_ device: CaptureDevice, to url: URL, seconds: Int64, settings: MovieOutputSettings,
                       sourceLocation: SourceLocation = #_sourceLocation) async throws -> WitnessedRecording {
        let movie = CaptureMovieFileOutput()
        movie.maxRecordedDuration = MediaTime(value: seconds, timescale: 1)
        let frames = CaptureVideoDataOutput()
        frames.alwaysDiscardsLateVideoFrames = false
        let recorder = SampleRecorder()
        recorder.attach(to: frames)
        let session = try VMCapture.session(device, outputs: [movie, frames])
        let connection = try #require(movie.connection(with: .video), sourceLocation: sourceLocation)
        movie.setOutputSettings(settings, for: connection)
        try await session.start()
        defer { try? session.stopRunning() }
        // The stream is under way (and the witness has a frame to compare with) before recording.
        #expect(await recorder.samples.wait(forCount: 2, timeout: .seconds(30)), "frames before the recording: \(recorder.samples.count)",
                sourceLocation: sourceLocation)
        let lastBeforeStart = recorder.samples.items.last?.sequenceNumber
        let delegate = RecordingRecorder()
        try movie.startRecording(to: url, recordingDelegate: delegate)
        let finish = await delegate.finished(timeout: .seconds(60))
        #expect(finish != nil, "the recording never finished", sourceLocation: sourceLocation)
        // Two more frames, so the witness has seen every frame the recording could have taken.
        let seen = recorder.samples.count
        #expect(await recorder.samples.wait(forCount: seen + 2, timeout: .seconds(30)), "frames after the recording",
                sourceLocation: sourceLocation)
        try await session.stop()
        return WitnessedRecording(url: url, calls: delegate.calls.items, movie: movie.lastRecordedMovie, witness: recorder.log.items,
                                  lastBeforeStart: lastBeforeStart, packetTimes: try Self.packetTimes(url.path),
                                  startTime: delegate.startTimes.items.first)
    }

    /// Every video packet's presentation time (ffprobe), relative to the first. A container's
    /// constant shift (an edit list, a B-frame delay) cancels out.
    static func packetTimes(_ path: String) throws -> [Double] {
        let times = try ProbedMovie.videoTimestamps(path)
        return times.map { $0 - (times.first ?? 0) }
    }

    /// The file's frames identified among the witness's, and the sums the promise is about.
    var account: RecordingAccount { RecordingAccount(self) }
}
