/// One decoded unit of a file stream with its place on the file's timeline.
struct FileSample: Sendable {
    /// The frame or the run of audio frames.
    var media: SampleBuffer.Media
    /// Where it starts, from the file's start, in the reader's timescale.
    var time: Int64
    /// How long it lasts, in the reader's timescale.
    var duration: Int64
    /// How far the stream's sequence number advances past it: 1 for a video frame, the number of
    /// audio frames for audio.
    var length: Int
}
