import CaptureKit

/// The web preview's status document (`status.json`), polled by its page.
struct WebPreviewStatus: Encodable, Sendable {
    /// One library item shown as a thumbnail.
    struct LibraryItem: Encodable, Sendable {
        var id: String
        var kind: String
        var thumbnail: String
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
}
