import CaptureKit
import CommandLineSupport
import Dispatch
import Foundation
import Synchronization

/// What `capture watch` does with motion events (and with the clips sound and codes trigger in
/// the ring): a clip per episode of motion, each reported
/// on its own line once its file is complete. Without a pre-roll ring, a movie recording
/// started when motion begins and finished when the episode ends (after the motion output's
/// quiet period); with one, a trigger of the ring for every frame with motion, so the clip
/// starts before the motion and lasts until the post-roll after its last frame.
final class MotionClipRecorder: CaptureMotionOutputDelegate, CaptureFileOutputRecordingDelegate, CapturePreRollOutputDelegate {
    /// One finished clip as printed with --json.
    struct Report: Encodable {
        var file: String
        /// What triggered it: `motion`, `sound`, `code qr`…
        var reason: String
        /// When motion began, on the session clock (seconds), and how much of the picture moved.
        var trigger: Double
        var score: Double
        /// x, y, width, height of each moving area in the picture's normalized coordinates.
        var boxes: [[Double]]
        var duration: Double
        var frames: Int
        var error: String?
    }

    private struct State {
        var pending: [URL: MotionEvent] = [:]
        var finished = 0
        var failure: CaptureError?
        var closing = false
        /// The motion that opened the ring's clip under way (with a ring).
        var opening: MotionEvent?
        var ringClipOpen = false
    }

    private let movie: CaptureMovieFileOutput
    private let ring: CapturePreRollOutput?
    private let folder: URL
    private let json: Bool
    private let state = Mutex(State())
    /// Signalled when the last clip under way has finished after ``close()``.
    let drained = DispatchSemaphore(value: 0)

    init(movie: CaptureMovieFileOutput, ring: CapturePreRollOutput?, folder: URL, json: Bool) {
        self.movie = movie
        self.ring = ring
        self.folder = folder
        self.json = json
        ring?.setDelegate(self, queue: DispatchQueue(label: "capture.watch.clips"))
    }

    /// Clips finished so far.
    var finishedCount: Int { state.withLock { $0.finished } }

    /// A recording error that was not the end of the clip's input.
    var failure: CaptureError? { state.withLock { $0.failure } }

    func motionOutput(_ output: CaptureMotionOutput, didOutput event: MotionEvent, from connection: CaptureConnection) {
        if let ring {
            guard event.phase != .ended, !state.withLock({ $0.closing }) else { return }
            state.withLock { state in if !state.ringClipOpen, state.opening == nil || event.phase == .began { state.opening = event } }
            try? ring.trigger(reason: "motion", at: event.presentationTimeStamp)
            return
        }
        switch event.phase {
        case .began:
            guard !movie.isRecording, !state.withLock({ $0.closing }) else { return }
            let url = DatedMovieName.next(in: folder, prefix: "motion")
            do throws(CaptureError) {
                try movie.startRecording(to: url, recordingDelegate: self)
                state.withLock { $0.pending[url] = event }
            } catch {
                state.withLock { $0.failure = error }
                Console.error(error.message)
            }
        case .ended:
            movie.stopRecording()
        case .changed:
            break
        }
    }

    func fileOutput(_ output: CaptureMovieFileOutput, didFinishRecordingTo fileURL: URL, from connections: [CaptureConnection],
                    error: (any Error)?) {
        let failure = (error as? CaptureError).flatMap { $0.recordingSuccessfullyFinished ? nil : $0 }
        let (trigger, closing) = state.withLock { state in
            state.finished += 1
            if let failure { state.failure = failure }
            return (state.pending.removeValue(forKey: fileURL), state.closing)
        }
        let clip = output.lastRecordedMovie
        report(fileURL, trigger: trigger, reason: "motion", at: nil, duration: clip?.duration ?? .zero, frames: clip?.videoFrameCount ?? 0,
               failure: failure)
        if closing { drained.signal() }
    }

    func preRollOutput(_ output: CapturePreRollOutput, didOutput event: PreRollEvent) {
        let (url, duration, failure): (URL, MediaTime, CaptureError?)
        switch event {
        case .started:
            state.withLock { $0.ringClipOpen = true }
            return
        case .finished(let clip): (url, duration, failure) = (clip.url, clip.duration, nil)
        case .failed(let failed, _, let error): (url, duration, failure) = (failed, .zero, error)
        }
        let (reason, time): (String, MediaTime?)
        switch event {
        case .finished(let clip): (reason, time) = (clip.reason, clip.triggerTime)
        case .failed(_, let why, _): (reason, time) = (why, nil)
        case .started: (reason, time) = ("", nil)
        }
        let (trigger, closing) = state.withLock { state in
            defer { state.opening = nil; state.ringClipOpen = false; state.finished += 1 }
            if let failure { state.failure = failure }
            return (state.opening, state.closing)
        }
        let frames = (try? MediaFileInfo(contentsOf: url))?.streams.first { $0.kind == .video }?.frameCount ?? 0
        // A clip opened by sound or a code has no motion to show.
        report(url, trigger: reason == "motion" ? trigger : nil, reason: reason, at: time, duration: duration, frames: frames, failure: failure)
        if closing { drained.signal() }
    }

    /// Prints one finished clip: what opened it (the motion, or another trigger `reason` at
    /// `time`), its length, what went wrong.
    private func report(_ url: URL, trigger: MotionEvent?, reason: String, at time: MediaTime?, duration: MediaTime, frames: Int,
                        failure: CaptureError?) {
        let report = Report(file: url.path, reason: reason, trigger: trigger?.presentationTimeStamp.seconds ?? time?.seconds ?? 0, score: trigger?.score ?? 0,
                            boxes: (trigger?.boxes ?? []).map { [$0.minX, $0.minY, $0.width, $0.height].map { Double($0) } },
                            duration: duration.seconds, frames: frames, error: failure?.message)
        if json, let data = try? JSONEncoder().encode(report), let line = String(data: data, encoding: .utf8) {
            Console.print(line)
        } else if trigger == nil, reason != "motion" {
            Console.print(String(format: "%@: %@ at %.3f s, %.3f s, %d frames%@", report.file, reason, report.trigger, report.duration,
                                 report.frames, failure.map { "; \($0.message)" } ?? ""))
        } else {
            Console.print(String(format: "%@: motion at %.3f s (%.1f %% of the picture), %.3f s, %d frames%@", report.file,
                                 report.trigger, report.score * 100, report.duration, report.frames,
                                 failure.map { "; \($0.message)" } ?? ""))
        }
    }

    /// Starts no new clip, finishes the recording under way, and returns whether a clip was
    /// under way (a ring's clip finishes when the session stops).
    func close() -> Bool {
        let ringClip = state.withLock { state in
            state.closing = true
            return state.ringClipOpen || state.opening != nil
        }
        if ring != nil { return ringClip }
        guard movie.isRecording else { return false }
        movie.stopRecording()
        return true
    }
}
