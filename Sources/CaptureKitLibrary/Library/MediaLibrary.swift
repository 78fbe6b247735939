import CaptureKitCore
import CaptureKitMedia
import Dispatch
import Foundation
import Glibc
import Synchronization

/// The photo album of a Linux desktop (`PHPhotoLibrary` / `ALAssetsLibrary`): photos and movies
/// saved into the user's Pictures and Videos folders, indexed in SQLite.
///
/// ```swift
/// let library = try MediaLibrary.standard()       // ~/Pictures/CaptureKit, ~/Videos/CaptureKit
/// let jpegData = try Data(contentsOf: URL(fileURLWithPath: "photo.jpg"))
/// let photo = try await library.saveImage(jpegData)     // or a PixelBuffer, encoded as JPEG
/// let clip = URL(fileURLWithPath: "clip.mov")
/// if library.isVideoCompatible(at: clip).isCompatible {
///     let movie = try await library.saveVideo(at: clip, move: true)
///     print(movie.fileURL.path)
/// }
/// for asset in try library.assets(kind: .photo) { print(asset.id, asset.creationDate, asset.fileURL.path) }
/// try await library.delete(photo)
/// ```
///
/// **Files.** Every file's name is made by the library (`yyyyMMdd-HHmmss-<UUID>.<ext>`, the
/// UUID being the asset's ``MediaAsset/id``); nothing of a caller's file name or path is used,
/// so no input can place a file outside the library's folders. Files are created 0600 and
/// folders the library creates 0700. A photo's file has its modification time set to its
/// creation date.
///
/// **Crash safety.** A save writes a hidden temporary file in the target folder, syncs it,
/// inspects it, renames it into place, syncs the folder, and only then inserts its row in the
/// index (SQLite in WAL mode, synced on commit). A delete removes the row and sets the file
/// aside under a temporary name in one transaction, then removes it. So the index never lists
/// a half-written file, and a crash at any point leaves at worst a temporary file, a complete
/// file without a row, or a row whose file is gone — which opening the library reconciles:
/// - temporary files are removed;
/// - rows whose file is missing are removed;
/// - complete files without a row that carry a library-made name (renamed into place by a
///   write that died before indexing) are inspected and indexed under the id in their name;
/// - any other file in the folders (put there by hand or by another program), or a
///   library-named file that cannot be read as media, is left alone and not indexed: the
///   library never deletes what it did not write.
///
/// Reconciliation needs the library to itself for a moment: it runs when no save or delete is
/// in progress in any process (they hold a shared lock on `library.lock`, beside the index) and
/// is skipped otherwise, to run at a later open.
///
/// **Concurrency.** A library is `Sendable`: saves from many threads, or from many processes
/// on the same folders, all succeed (SQLite's locks with a busy timeout serialise the index
/// updates). Listing reads the index only, so it is fast and does not open the files: the
/// assets it returns have no tracks or tags — `MediaAsset(url:id:)` inspects a file in full.
/// Each save has an `async` twin running off the caller's thread and a completion-handler
/// form that answers on a dispatch queue of the caller's choice.
public final class MediaLibrary: Sendable {
    /// The folder photos are saved in.
    public let photosDirectory: URL
    /// The folder movies are saved in.
    public let videosDirectory: URL
    /// The SQLite index of the assets.
    public let indexURL: URL

    /// The file whose `flock` keeps reconciliation away from writes in progress.
    package let lockURL: URL
    /// The index connection, one caller at a time.
    package let index: Mutex<MediaLibraryIndex>
    /// Where the `async` and completion-handler forms do their work.
    package let workQueue = DispatchQueue(label: "CaptureKit.MediaLibrary", qos: .userInitiated, attributes: .concurrent)

    /// The user's library: photos in `CaptureKit` under the XDG Pictures folder (what
    /// `xdg-user-dir PICTURES` prints, from `~/.config/user-dirs.dirs`; `~/Pictures` when it
    /// is not set), movies in `CaptureKit` under the XDG Videos folder (`~/Videos`), the index
    /// at `$XDG_DATA_HOME/capturekit/library.sqlite` (`~/.local/share/capturekit/…`).
    /// Missing folders are created (0700). Throws `.fileError` when they cannot be, or when the
    /// index cannot be opened; `.corruptFile` when the index is damaged.
    public static func standard() throws(CaptureError) -> MediaLibrary {
        try MediaLibrary(locations: .standard(environment: ProcessInfo.processInfo.environment))
    }

    /// A library keeping everything under `root`: `root/Photos`, `root/Videos` and the index
    /// `root/library.sqlite` (with its WAL files and `root/library.lock`). Missing folders are
    /// created (0700); opening reconciles the folders with the index (see the type's notes).
    /// Throws `.fileError` when the folders or the index cannot be created or opened,
    /// `.corruptFile` when the index is damaged.
    public convenience init(root: URL) throws(CaptureError) {
        try self.init(locations: MediaLibraryLocations(root: root))
    }

    /// Opens the library at `locations`: folders, index, then reconciliation.
    package init(locations: MediaLibraryLocations) throws(CaptureError) {
        photosDirectory = locations.photos
        videosDirectory = locations.videos
        indexURL = locations.index
        lockURL = locations.lock
        for folder in [locations.photos, locations.videos, locations.index.deletingLastPathComponent()] {
            try MediaLibraryFileSystem.makeDirectory(folder)
        }
        // SQLite gives its WAL and shared-memory files the database file's mode: create it 0600.
        try MediaLibraryFileSystem.touchPrivateFile(locations.index.path)
        index = Mutex(try MediaLibraryIndex(path: locations.index.path))
        try reconcile()
    }

    /// The assets of `kind` (all when nil) created at or after `from` and before `to` (either
    /// bound open when nil), newest first. Read from the index, without opening the files:
    /// `tracks` and `metadata` are empty (`MediaAsset(url:id:)` has them). Throws for an index
    /// that cannot be read.
    public func assets(kind: MediaAsset.Kind? = nil, from: Date? = nil, to: Date? = nil) throws(CaptureError) -> [MediaAsset] {
        try index.withLock { index throws(CaptureError) in try index.records(kind: kind, from: from, to: to) }
            .map { $0.asset(in: directory(for: $0.kind)) }
    }

    /// The asset with the library id `id`, nil when there is none. Read from the index (see
    /// ``assets(kind:from:to:)``).
    public func asset(id: String) throws(CaptureError) -> MediaAsset? {
        try index.withLock { index throws(CaptureError) in try index.record(id: id) }
            .map { $0.asset(in: directory(for: $0.kind)) }
    }

    /// Removes `asset` — its row and its file — from the library; the asset is found by its
    /// ``MediaAsset/id`` (its `fileURL` is not trusted). A row whose file is gone already is
    /// removed too. Throws `.invalidArgument` when the library has no asset with that id,
    /// `.fileError` when the file cannot be removed (the asset then stays whole).
    public func delete(_ asset: MediaAsset) throws(CaptureError) {
        let lock = try MediaLibraryLock.shared(lockURL.path)
        defer { withExtendedLifetime(lock) {} }
        let (folder, aside) = try index.withLock { index throws(CaptureError) -> (String, String) in
            let database = index.database
            let label = "delete an asset"
            try database.begin(label)
            var moved: (original: String, aside: String)?
            do throws(CaptureError) {
                guard let record = try index.record(id: asset.id), try index.delete(id: asset.id) else {
                    throw .invalidArgument("the library has no asset \(asset.id) (deleted already?)")
                }
                let folder = directory(for: record.kind).path
                let original = folder + "/" + record.fileName
                let aside = folder + "/" + Self.temporaryName(id: record.id, fileExtension: (record.fileName as NSString).pathExtension)
                // Set aside, not removed, until the row's removal is committed. A file that is
                // gone already (removed by hand) leaves only its row to remove.
                do throws(CaptureError) {
                    try MediaLibraryFileSystem.rename(original, to: aside)
                    moved = (original, aside)
                } catch where error.errno == ENOENT {
                    moved = nil
                }
                try database.commit(label)
                return (folder, aside)
            } catch {
                database.rollback(label)
                if let moved { try? MediaLibraryFileSystem.rename(moved.aside, to: moved.original) }
                throw error
            }
        }
        MediaLibraryFileSystem.removeQuietly(aside)
        try MediaLibraryFileSystem.syncDirectory(folder)
    }

    /// The folder of assets of `kind`.
    package func directory(for kind: MediaAsset.Kind) -> URL {
        kind == .photo ? photosDirectory : videosDirectory
    }
}
