/// One pass through one stream of a media file, as timed samples. A file stream opens a reader
/// per pass (the first before it starts, so opening errors are thrown to the caller) and uses it
/// from its own thread only.
protocol FileSampleReader: AnyObject, Sendable {
    /// Units per second of ``FileSample/time`` and ``FileSample/duration``.
    var timescale: Int32 { get }
    /// The next sample, or nil at the end of the file. Throws `.corruptFile` for damaged data.
    func next() throws(CaptureError) -> FileSample?
}
