import Dispatch
import Foundation

/// The files of one recording that ``CaptureMovieFileOutput/InterruptionBehavior/startNewRecording``
/// splits at each loss of a device: `clip.mov`, then `clip-2.mov`, `clip-3.mov`… each started
/// with the same delegate when the session's devices are back (a segmented recording starts
/// again in its folder).
struct MovieRecordingSeries {
    /// The file the app asked for: the series' names derive from it.
    let first: URL
    /// How the recording is split into segments in the folder `first`, when it is.
    var segmentation: MovieSegmentation?
    let delegate: (any CaptureFileOutputRecordingDelegate)?
    let queue: DispatchQueue
    /// Files started so far.
    private(set) var count = 1
    /// Whether a device was lost and the next file waits to be started.
    var isWaiting = false
    /// Whether the devices came back while the last file was still being finished.
    var devicesReturned = false

    init(first: URL, delegate: (any CaptureFileOutputRecordingDelegate)?, queue: DispatchQueue) {
        self.first = first
        self.delegate = delegate
        self.queue = queue
    }

    /// The next file's name: the first one's with the lowest number after the last one used
    /// that no file has (a recording never overwrites a file).
    mutating func nextURL(exists: (URL) -> Bool = { FileManager.default.fileExists(atPath: $0.path) }) -> URL {
        // A segmented recording goes on in its folder: its names never collide.
        if segmentation != nil { return first }
        let directory = first.deletingLastPathComponent()
        let stem = first.deletingPathExtension().lastPathComponent, ext = first.pathExtension
        var url: URL
        repeat {
            count += 1
            url = directory.appendingPathComponent("\(stem)-\(count)").appendingPathExtension(ext)
        } while exists(url)
        return url
    }
}
