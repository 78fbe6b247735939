import CaptureKit

/// The web preview's status document (`status.json`), polled by its page.
struct WebPreviewStatus: Encodable, Sendable {
    /// One library item shown as a thumbnail.
    struct LibraryItem: Encodable, Sendable {
        var id: String
        var kind: String
        var thumbnail: String
    }

    /// One timeline entry, with the paths of its picture and clip when it has them.
    struct TimelineItem: Encodable, Sendable {
        var id: Int
        var kind: String
        var state: String
        var title: String
        /// Milliseconds since 1970, as JavaScript's `Date` takes them.
        var time: Double
        var duration: Double?
        var detail: String?
        var thumbnail: String?
        var clip: String?

        init(_ entry: WebPreviewTimeline.Entry) {
            id = entry.id
            kind = entry.kind.rawValue
            state = entry.state.rawValue
            title = entry.title
            time = (entry.date.timeIntervalSince1970 * 1000).rounded()
            duration = entry.duration.map { ($0 * 100).rounded() / 100 }
            detail = entry.detail
            thumbnail = entry.hasThumbnail ? "timeline/\(entry.id)/thumbnail.jpg" : nil
            clip = entry.kind == .clip && entry.state == .finished ? "timeline/\(entry.id)/clip" : nil
        }
    }

    var device: String
    var width: Int
    var height: Int
    var framesPerSecond: Double
    var framesReceived: Int
    var framesEncoded: Int
    var droppedFrames: Int
    var viewers: Int
    var controls: Bool
    var isRecording: Bool
    var library: [LibraryItem]
    /// Newest first.
    var timeline: [TimelineItem]
}
