import CaptureKit
import Dispatch
import Synchronization

/// ``CaptureMovieFileOutput/finishRecording()`` awaited from a benchmark thread, which has no
/// async context: every movie given is finished at once (so no camera records longer than
/// another while the others are being closed), and the thread waits for all of them.
enum MovieFinisher {
    /// The finished movies, in the order given, or nil when one is not finished within `seconds`.
    static func finish(_ movies: [CaptureMovieFileOutput], seconds: Double = 30) -> [RecordedMovie]? {
        let finished = Finished()
        for (index, movie) in movies.enumerated() {
            Task.detached {
                let recorded = await movie.finishRecording()
                finished.movies.withLock { $0[index] = recorded }
                finished.done.signal()
            }
        }
        let deadline = DispatchTime.now() + seconds
        for _ in movies {
            guard finished.done.wait(timeout: deadline) == .success else { return nil }
        }
        return finished.movies.withLock { movies in movies.sorted { $0.key < $1.key }.map(\.value) }
    }

    /// Where the tasks leave the finished movies, by index.
    private final class Finished: Sendable {
        let movies = Mutex<[Int: RecordedMovie]>([:])
        let done = DispatchSemaphore(value: 0)
    }
}
