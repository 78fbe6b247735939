import CaptureKitCore
import CaptureKitMedia
import Glibc

/// The library-wide lock that keeps reconciliation away from writes in progress, in this
/// process or any other: every save and delete holds it shared (`flock(LOCK_SH)`) from its
/// first file operation to its index update, and reconciliation runs only when it can take it
/// exclusively without waiting. A process that dies loses its lock with its descriptors, so a
/// crashed writer never blocks anyone.
///
/// Each holder opens the lock file itself: `flock` locks belong to an open file description,
/// so two holders in one process conflict exactly like two processes.
package final class MediaLibraryLock {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// Waits for the lock in shared mode (a writer).
    package static func shared(_ path: String) throws(CaptureError) -> MediaLibraryLock {
        let descriptor = try open(path)
        guard MediaLibraryFileSystem.retrying({ flock(descriptor, LOCK_SH) }) == 0 else {
            let error = MediaLibraryFileSystem.error("flock", path: path, "cannot lock the library")
            close(descriptor)
            throw error
        }
        return MediaLibraryLock(descriptor: descriptor)
    }

    /// The lock in exclusive mode if nobody holds it now; nil when a writer does.
    package static func exclusiveIfFree(_ path: String) throws(CaptureError) -> MediaLibraryLock? {
        let descriptor = try open(path)
        guard MediaLibraryFileSystem.retrying({ flock(descriptor, LOCK_EX | LOCK_NB) }) == 0 else {
            let failure = errno
            close(descriptor)
            if failure == EWOULDBLOCK { return nil }
            throw MediaLibraryFileSystem.error("flock", path: path, errno: failure, "cannot lock the library")
        }
        return MediaLibraryLock(descriptor: descriptor)
    }

    private static func open(_ path: String) throws(CaptureError) -> Int32 {
        let descriptor = MediaLibraryFileSystem.retrying { Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, MediaLibraryFileSystem.fileMode) }
        try MediaLibraryFileSystem.check(descriptor, "open", path: path, "cannot open the library's lock file")
        return descriptor
    }
}
