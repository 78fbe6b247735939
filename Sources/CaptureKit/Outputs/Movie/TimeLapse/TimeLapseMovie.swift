import Foundation

/// The movie a ``CaptureTimeLapseOutput`` makes: one frame per shot, played at
/// ``framesPerSecond`` (one frame every 10 s played at 30 fps: an hour in 12 s).
///
/// The movie is written in fragments as movie recordings are — a fragment per frame here, so a
/// killed process loses at most the shot being written — and its encoder holds no frame back.
///
/// ```swift
/// var movie = TimeLapseMovie(url: URL(fileURLWithPath: "site.mp4"))
/// movie.framesPerSecond = 25
/// movie.settings.videoCodec = .hevc
/// ```
public struct TimeLapseMovie: Sendable {
    /// The file: `.mov`, `.mp4` or `.mkv`; it must not exist.
    public var url: URL
    /// How fast the movie plays, in frames per second (1...240); 30 by default.
    public var framesPerSecond: Int32
    /// The encoding (codec, quality, preset); audio settings are not used. With no
    /// `keyframeInterval` the movie has a keyframe every second of playing time.
    public var settings: MovieOutputSettings

    /// A movie into `url` at `framesPerSecond`.
    public init(url: URL, framesPerSecond: Int32 = 30, settings: MovieOutputSettings = MovieOutputSettings()) {
        self.url = url
        self.framesPerSecond = framesPerSecond
        self.settings = settings
    }
}
