import CaptureKit
import Dispatch
import Foundation

extension CaptureWebPreview {
    /// Shows `output`'s clips on the page's timeline: each as it starts, with its trigger's
    /// reason and the picture at that moment, then finished — with its thumbnail and length,
    /// and playable in the page — or failed, with why.
    ///
    /// ```swift
    /// func watch(_ session: CaptureSession, clips: CapturePreRollOutput) throws {
    ///     let preview = try CaptureWebPreview(session: session)
    ///     preview.showClips(of: clips)
    ///     print("open \(preview.url)")
    /// }
    /// ```
    ///
    /// Works on any number of outputs, before or while the session runs, until ``stop()``.
    /// The page can play a clip only while the preview keeps its entry
    /// (``Options/timelineCapacity``) and the file is where the event said.
    public func showClips(of output: CapturePreRollOutput) {
        let source = newTimelineSource()
        let events = output.events
        follow { [weak self] in
            for await event in events {
                guard let self else { return }
                self.note(event, from: source)
            }
        }
    }

    /// Shows `output`'s episodes of motion on the page's timeline: each from its first frame
    /// (with the picture at that moment and the share of the picture that moved) to its end
    /// (with how long it lasted and the largest share seen).
    public func showMotion(of output: CaptureMotionOutput) {
        let source = newTimelineSource()
        let events = output.motionEvents
        follow { [weak self] in
            var began: MediaTime?
            var largest = 0.0
            for await event in events {
                guard let self else { return }
                switch event.phase {
                case .began:
                    began = event.presentationTimeStamp
                    largest = event.score
                    let id = self.timeline.withLock { $0.add(.motion, source: source, title: "motion", date: Date(), state: .recording) }
                    self.describeMotion(id, largest: largest)
                    self.takeSnapshot(for: id)
                case .changed:
                    guard event.score > largest, let id = self.timeline.withLock({ $0.newestOpen(.motion, of: source) }) else { continue }
                    largest = event.score
                    self.describeMotion(id, largest: largest)
                case .ended:
                    let length = began.map { (event.presentationTimeStamp - $0).seconds }
                    self.timeline.withLock { timeline in
                        guard let id = timeline.newestOpen(.motion, of: source) else { return }
                        timeline.update(id) {
                            $0.state = .finished
                            $0.duration = length
                        }
                    }
                    began = nil
                }
            }
        }
    }

    /// Puts an event of the application's own on the page's timeline ("doorbell pressed"),
    /// with the picture at that moment.
    public func addTimelineEvent(_ title: String) {
        let id = timeline.withLock { $0.add(.event, source: 0, title: title, date: Date(), state: .finished) }
        takeSnapshot(for: id)
    }

    // MARK: Following outputs

    private func note(_ event: PreRollEvent, from source: Int) {
        switch event {
        case .started(let url, let reason, _, _):
            let id = timeline.withLock { $0.add(.clip, source: source, title: reason, date: Date(), state: .recording, clip: url) }
            takeSnapshot(for: id)
        case .finished(let clip):
            timeline.withLock { timeline in
                let id = timeline.openClip(of: source, url: clip.url)
                    ?? timeline.add(.clip, source: source, title: clip.reason, date: Date(), state: .recording)
                timeline.update(id) {
                    $0.state = .finished
                    $0.clip = clip.url
                    $0.duration = clip.duration.seconds
                    $0.thumbnailFile = clip.thumbnailURL
                }
            }
        case .failed(let url, let reason, let error):
            timeline.withLock { timeline in
                let id = timeline.openClip(of: source, url: url)
                    ?? timeline.add(.clip, source: source, title: reason, date: Date(), state: .recording, clip: url)
                timeline.update(id) {
                    $0.state = .failed
                    $0.detail = error.description
                }
            }
        }
    }

    private func describeMotion(_ id: Int, largest: Double) {
        let percent = (largest * 1000).rounded() / 10
        timeline.withLock { $0.update(id) { $0.detail = "\(percent)% of the picture" } }
    }

    /// Keeps the next frame the preview encodes as entry `id`'s picture, off the caller's
    /// thread (a stream consumer's, which must not wait for frames).
    private func takeSnapshot(for id: Int) {
        let after = requestFrame()
        snapshots.async { [weak self] in
            guard let self, let frame = self.broadcast.frame(after: after, timeout: 3) else { return }
            self.timeline.withLock { $0.update(id) { $0.snapshot = frame.jpeg } }
        }
    }
}
