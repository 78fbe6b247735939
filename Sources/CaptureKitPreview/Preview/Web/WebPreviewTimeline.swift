import Foundation

/// The web preview's timeline: the newest events and clips, newest last, at most `capacity`
/// of them (the oldest go first, and with them the files the page may serve for them).
///
/// A clip is open (`recording`) from its output's start event until its finish or failure;
/// an output's clips finish in the order they started, so a finish is matched to its start by
/// file, or else to the oldest clip of that output still open (a clip moved into a library
/// finishes under another name).
struct WebPreviewTimeline: Sendable {
    /// What an entry is about.
    enum Kind: String, Sendable {
        /// A pre-roll clip; playable once finished.
        case clip
        /// An episode of motion.
        case motion
        /// An event the application added.
        case event
    }

    /// Where an entry is in its life.
    enum State: String, Sendable {
        /// A clip being written, or motion going on.
        case recording
        /// Complete.
        case finished
        /// The clip could not be written.
        case failed
    }

    /// One event or clip.
    struct Entry: Sendable {
        let id: Int
        let kind: Kind
        /// Which followed output it came from (0 for the application's events).
        let source: Int
        /// The trigger's reason, or what the event was.
        var title: String
        /// When it happened, by the wall clock.
        let date: Date
        var state: State
        /// Seconds: the clip's or the episode's length, once known.
        var duration: Double?
        /// More to say: a motion score, an error.
        var detail: String?
        /// The clip's movie file.
        var clip: URL?
        /// The clip's thumbnail file, once finished.
        var thumbnailFile: URL?
        /// The picture when it happened, as the preview encoded it.
        var snapshot: Data?

        /// Whether the page has a picture to show for it.
        var hasThumbnail: Bool { thumbnailFile != nil || snapshot != nil }
    }

    /// The most entries kept.
    let capacity: Int
    private(set) var entries: [Entry] = []
    private var nextID = 1

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Adds an entry and returns its id.
    mutating func add(_ kind: Kind, source: Int, title: String, date: Date, state: State, clip: URL? = nil) -> Int {
        let id = nextID
        nextID += 1
        entries.append(Entry(id: id, kind: kind, source: source, title: title, date: date, state: state, clip: clip))
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        return id
    }

    /// Changes the entry `id`, if it is still kept.
    mutating func update(_ id: Int, _ change: (inout Entry) -> Void) {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return }
        change(&entries[index])
    }

    /// The open clip of `source` that a finish or failure for `url` closes: the one with that
    /// file, else the oldest open one.
    func openClip(of source: Int, url: URL) -> Int? {
        let open = entries.filter { $0.kind == .clip && $0.source == source && $0.state == .recording }
        return (open.first { $0.clip == url } ?? open.first)?.id
    }

    /// The newest open entry of `kind` from `source`.
    func newestOpen(_ kind: Kind, of source: Int) -> Int? {
        entries.last { $0.kind == kind && $0.source == source && $0.state == .recording }?.id
    }

    /// The entry `id`, if it is still kept.
    func entry(_ id: Int) -> Entry? { entries.first { $0.id == id } }
}
