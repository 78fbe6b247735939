import Foundation

/// The output a recording delegate hears from (`AVCaptureFileOutput`). AVFoundation's is the
/// movie output's superclass; CaptureKit's only file output is the movie output, so this is its
/// other name, and a delegate method written as on iOS —
/// `fileOutput(_ output: CaptureFileOutput, didFinishRecordingTo:from:error:)` — is the
/// protocol's own requirement, not a look-alike that would never be called.
public typealias CaptureFileOutput = CaptureMovieFileOutput

/// Hears how a movie recording goes (`AVCaptureFileOutputRecordingDelegate`), on the queue given
/// to `startRecording(to:recordingDelegate:queue:)`, in this order: didStart, then any
/// didPause/didResume, then willFinish and didFinish — each recording gets exactly one
/// didFinish. Only didFinish is required: a misspelled didFinish is a compile error, not a
/// silent default that leaves whoever waits for the movie waiting. The output parameter may be
/// spelled ``CaptureFileOutput`` and the errors are `(any Error)?`, as on iOS, so a delegate
/// written as Apple's samples write it is the requirement itself; the error's dynamic type is
/// always ``CaptureError`` (`error as? CaptureError`).
///
/// ```swift
/// final class Recorder: CaptureFileOutputRecordingDelegate {
///     func fileOutput(_ output: CaptureFileOutput, didFinishRecordingTo outputFileURL: URL,
///                     from connections: [CaptureConnection], error: (any Error)?) {
///         // A recording that failed midway still leaves a playable file up to the failure.
///         print("saved \(outputFileURL.path)", (error as? CaptureError)?.message ?? "")
///     }
/// }
/// try movieOutput.startRecording(to: URL(fileURLWithPath: "clip.mov"), recordingDelegate: Recorder())
/// ```
public protocol CaptureFileOutputRecordingDelegate: AnyObject, Sendable {
    /// The first frame was written.
    func fileOutput(_ output: CaptureMovieFileOutput, didStartRecordingTo fileURL: URL, from connections: [CaptureConnection])
    /// The first frame was written; `startPTS` is its capture time (on the session's clock,
    /// ``MediaTime/now``), the time the file's zero stands for (iOS 18's
    /// `fileOutput(_:didStartRecordingTo:startPTS:from:)`). By default it calls the variant
    /// without the time, so implement either.
    func fileOutput(_ output: CaptureMovieFileOutput, didStartRecordingTo fileURL: URL, startPTS: MediaTime, from connections: [CaptureConnection])
    /// Recording paused at a frame boundary.
    func fileOutput(_ output: CaptureMovieFileOutput, didPauseRecordingTo fileURL: URL, from connections: [CaptureConnection])
    /// Recording resumed; the file has no gap.
    func fileOutput(_ output: CaptureMovieFileOutput, didResumeRecordingTo fileURL: URL, from connections: [CaptureConnection])
    /// No more media will be added; the file is being closed.
    func fileOutput(_ output: CaptureMovieFileOutput, willFinishRecordingTo fileURL: URL, from connections: [CaptureConnection], error: (any Error)?)
    /// The file is closed. With an `error`, `(error as? CaptureError)?.recordingSuccessfullyFinished` says whether
    /// the file is complete and playable anyway (maximum duration or size reached, session
    /// stopped, a device went away, disk full after some fragments).
    func fileOutput(_ output: CaptureMovieFileOutput, didFinishRecordingTo fileURL: URL, from connections: [CaptureConnection], error: (any Error)?)
}

extension CaptureFileOutputRecordingDelegate {
    public func fileOutput(_ output: CaptureMovieFileOutput, didStartRecordingTo fileURL: URL, startPTS: MediaTime, from connections: [CaptureConnection]) {
        fileOutput(output, didStartRecordingTo: fileURL, from: connections)
    }
    public func fileOutput(_ output: CaptureMovieFileOutput, didStartRecordingTo fileURL: URL, from connections: [CaptureConnection]) {}
    public func fileOutput(_ output: CaptureMovieFileOutput, didPauseRecordingTo fileURL: URL, from connections: [CaptureConnection]) {}
    public func fileOutput(_ output: CaptureMovieFileOutput, didResumeRecordingTo fileURL: URL, from connections: [CaptureConnection]) {}
    public func fileOutput(_ output: CaptureMovieFileOutput, willFinishRecordingTo fileURL: URL, from connections: [CaptureConnection], error: (any Error)?) {}
}

/// A stretch of a movie without new pictures: the camera was away (unplugged, reset) while
/// the recording went on.
public struct VideoGap: Sendable, Hashable {
    /// Where the gap starts, in the file's time.
    public let start: MediaTime
    /// How long it lasts.
    public let duration: MediaTime
}

/// A finished recording, as ``CaptureMovieFileOutput/finishRecording()`` returns it.
///
/// ```swift
/// let movie = await movieOutput.finishRecording()
/// print(movie.url.path, movie.duration.seconds, movie.videoFrameCount, movie.droppedSampleCount)
/// for gap in movie.videoGaps { print("no video from", gap.start.seconds, "for", gap.duration.seconds, "s") }
/// ```
public struct RecordedMovie: Sendable {
    /// The file.
    public let url: URL
    /// How long it plays.
    public let duration: MediaTime
    /// Its size in bytes.
    public let fileSize: Int64
    /// Video frames written.
    public let videoFrameCount: Int
    /// Samples the recording could not keep (queue full, or a frame too late, while the
    /// encoder was behind), and frames the device skipped or could not capture while it was
    /// away — only those inside the recording, so the video frames in the file and the video
    /// drops add up to exactly the frames the camera produced from the first frame to the end.
    public let droppedSampleCount: Int
    /// Where the camera was away while the recording went on
    /// (``CaptureMovieFileOutput/InterruptionBehavior/continueRecording``): the picture holds
    /// its last frame there, the sound goes on.
    public let videoGaps: [VideoGap]
    /// Why the recording ended early, if it did (the file is complete when
    /// `error.recordingSuccessfullyFinished`).
    public let error: CaptureError?
}
