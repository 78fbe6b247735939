import CaptureKitCore
import CaptureKitMedia
import Foundation
import Glibc

extension MediaLibrary {
    /// Saves an encoded image — JPEG, PNG, HEIF or DNG bytes, e.g. `CapturePhoto.fileDataRepresentation()`
    /// of a processed or a raw photo — as a new photo, and returns it with its library id.
    ///
    /// The format is read from the bytes: JPEG's SOI marker, PNG's signature, an ISO `ftyp` box
    /// with a HEIF brand (`heic`, `heix`, `mif1`, …), or a TIFF header whose first directory has
    /// the `DNGVersion` tag. With no `fileExtension` (the default) the file is named for that
    /// format (`.jpg`, `.png`, `.heic`, `.dng`), as `PHAssetCreationRequest` takes data without a
    /// name; a `fileExtension` given (`jpg`, `jpeg`, `png`, `heic`, `heif` or `dng`) is kept, and
    /// must name the format the bytes are in. A DNG is a photo like the others: its size is the
    /// sensor's, and ``AssetImageGenerator`` shows it demosaiced. `creationDate` (default: now) is indexed
    /// and set as the file's modification time. The file is written under a generated name (see
    /// the type's notes) atomically, then indexed.
    ///
    /// Throws `.invalidArgument` for an unknown extension or one that does not match the bytes,
    /// `.unsupportedFile` for bytes that are not a JPEG, PNG, HEIF or DNG image, `.corruptFile` for
    /// an image that cannot be read, `.diskFull`/`.fileError` when it cannot be written; in
    /// every case nothing is left in the library.
    public func saveImage(_ data: Data, fileExtension: String? = nil, creationDate: Date? = nil) throws(CaptureError) -> MediaAsset {
        var named: MediaLibraryImageFormat?
        if let fileExtension {
            guard let format = MediaLibraryImageFormat(fileExtension: fileExtension) else {
                let known = MediaLibraryImageFormat.allCases.flatMap(\.fileExtensions).joined(separator: ", ")
                throw .invalidArgument("'\(fileExtension)' is not an image extension the library takes (\(known))")
            }
            named = format
        }
        guard let format = MediaLibraryImageFormat(contentsOf: data) else {
            let start = data.prefix(8).map { String($0, radix: 16) }.joined(separator: " ")
            throw CaptureError(.unsupportedFile, "the data (\(data.count) bytes, starting \(start.isEmpty ? "nowhere" : start)) is not a JPEG, PNG, HEIF or DNG image")
        }
        if let named, let fileExtension, format != named {
            throw .invalidArgument("the data is a \(format.rawValue.uppercased()) image, but the extension '\(fileExtension)' says \(named.rawValue.uppercased())")
        }
        let fileExtension = fileExtension.map { $0.hasPrefix(".") ? String($0.dropFirst()).lowercased() : $0.lowercased() }
            ?? format.preferredFileExtension
        let date = creationDate ?? Date()
        return try store(kind: .photo, fileExtension: fileExtension, creationDate: date) { (path) throws(CaptureError) in
            try Self.writeFile(path, modificationDate: date) { (descriptor) throws(CaptureError) in
                try MediaLibraryFileSystem.write(data, to: descriptor, path: path)
            }
        } inspect: { (url, id) throws(CaptureError) in
            try Self.inspectImage(at: url, id: id)
        }
    }

    /// Saves a frame as a new JPEG photo (libjpeg-turbo, from the YUV planes, with an EXIF
    /// block giving `creationDate` as DateTimeOriginal and the pixel size) and returns it.
    /// `quality` is 1...100. Throws `.invalidArgument` for a quality out of range, and as
    /// ``saveImage(_:fileExtension:creationDate:)-aq84``.
    public func saveImage(_ buffer: PixelBuffer, quality: Int = 90, creationDate: Date? = nil) throws(CaptureError) -> MediaAsset {
        let date = creationDate ?? Date()
        var metadata = EXIFMetadata()
        metadata.dateTimeOriginal = date
        metadata.pixelWidth = buffer.width
        metadata.pixelHeight = buffer.height
        metadata.software = "CaptureKit"
        let data = try JPEGEncoder.encode(buffer, quality: quality, metadata: metadata)
        return try saveImage(data, fileExtension: "jpg", creationDate: date)
    }

    /// Saves the movie at `url` as a new video, and returns it with its library id.
    ///
    /// The file must be compatible (``isVideoCompatible(at:)``); its name is not used: the
    /// library's name keeps only the extension when it suits the container (`.mov`, `.mp4`,
    /// `.m4v`, `.mkv`, `.webm`, `.avi`). With `move: false` (the default, as ALAssetsLibrary's
    /// `writeVideoAtPathToSavedPhotosAlbum` copies) the bytes are copied (the source stays as
    /// it is); with `move: true` the file is moved — a hard link and a rename on the
    /// same file system, a copy across file systems — and the source's name is removed once
    /// the video is indexed. The creation date is the movie's `creation_time` tag, else the
    /// source's modification time.
    ///
    /// Throws `.unsupportedFile` with the reason for an incompatible file, `.invalidArgument`
    /// for moving a file out of the library's own folders, `.fileError` when the source's
    /// folder is not writable for a move, `.diskFull`/`.fileError` when the copy cannot be
    /// written; in every case the source is untouched and nothing is left in the library.
    public func saveVideo(at url: URL, move: Bool = false) throws(CaptureError) -> MediaAsset {
        let source = url.standardizedFileURL
        let (compatibility, container) = Self.inspectMovie(at: source)
        if case .incompatible(let reason) = compatibility {
            throw CaptureError(.unsupportedFile, "cannot save the movie to the library: \(reason)", path: source.path)
        }
        let fileExtension = Self.movieExtension(container: container ?? "", sourceExtension: source.pathExtension)
        let sourceFolder = source.deletingLastPathComponent().resolvingSymlinksInPath().path
        if move {
            let ownFolders = [photosDirectory, videosDirectory].map { $0.resolvingSymlinksInPath().path }
            guard !ownFolders.contains(sourceFolder) else {
                throw .invalidArgument("\(source.path) is in the library already; save a copy (move: false) to duplicate it")
            }
            guard access(sourceFolder, W_OK) == 0 else {
                throw MediaLibraryFileSystem.error("access", path: sourceFolder, "cannot move the movie out of its folder")
            }
        }
        var restoreMode: (() -> Void)?
        let asset = try store(kind: .video, fileExtension: fileExtension, creationDate: nil) { (path) throws(CaptureError) in
            if move, let restore = try Self.linkPrivately(source.path, to: path) {
                restoreMode = restore
                return
            }
            try Self.copyFile(source.path, to: path)
        } inspect: { (url, id) throws(CaptureError) in
            try MediaAsset(url: url, id: id)
        } undo: {
            restoreMode?()
        }
        if move {
            // The video is saved; the source's name goes. Should that fail (the folder changed
            // since the check), the source stays where it is.
            MediaLibraryFileSystem.removeQuietly(source.path)
            try? MediaLibraryFileSystem.syncDirectory(sourceFolder)
        }
        return asset
    }

    /// The save pipeline: under the shared lock, `fill` makes the temporary file (written and
    /// synced), `inspect` reads it as an asset of `kind`, it is renamed into place under its
    /// generated name, the folder is synced, and the row is inserted. A failure at any step
    /// removes what the save made and calls `undo`; a crash at any step leaves what the next
    /// open's reconciliation repairs.
    package func store(kind: MediaAsset.Kind, fileExtension: String, creationDate: Date?,
               fill: (_ temporaryPath: String) throws(CaptureError) -> Void,
               inspect: (_ temporaryFile: URL, _ id: String) throws(CaptureError) -> MediaAsset,
               undo: () -> Void = {}) throws(CaptureError) -> MediaAsset {
        let lock = try MediaLibraryLock.shared(lockURL.path)
        defer { withExtendedLifetime(lock) {} }
        let id = UUID().uuidString
        let folder = directory(for: kind)
        let temporary = folder.appendingPathComponent(Self.temporaryName(id: id, fileExtension: fileExtension), isDirectory: false)
        let probed: MediaAsset
        let byteCount: Int64
        do throws(CaptureError) {
            try fill(temporary.path)
            probed = try inspect(temporary, id)
            guard probed.kind == kind else {
                throw CaptureError(.unsupportedFile, "the file reads as a \(probed.kind.rawValue), not a \(kind.rawValue)", path: temporary.path)
            }
            var status = stat()
            try MediaLibraryFileSystem.check(stat(temporary.path, &status), "stat", path: temporary.path, "cannot read the file's size")
            byteCount = Int64(status.st_size)
        } catch {
            MediaLibraryFileSystem.removeQuietly(temporary.path)
            undo()
            throw error
        }

        let date = creationDate ?? probed.creationDate
        let name = Self.fileName(id: id, date: date, fileExtension: fileExtension)
        let final = folder.appendingPathComponent(name, isDirectory: false)
        do throws(CaptureError) {
            try MediaLibraryFileSystem.rename(temporary.path, to: final.path)
            try MediaLibraryFileSystem.syncDirectory(folder.path)
        } catch {
            MediaLibraryFileSystem.removeQuietly(temporary.path)
            MediaLibraryFileSystem.removeQuietly(final.path)
            undo()
            throw error
        }

        let asset = probed.relocated(id: id, to: final, creationDate: date)
        do throws(CaptureError) {
            try index.withLock { index throws(CaptureError) in
                try index.insert(MediaLibraryRecord(asset: asset, fileName: name, byteCount: byteCount))
            }
        } catch {
            MediaLibraryFileSystem.removeQuietly(final.path)
            try? MediaLibraryFileSystem.syncDirectory(folder.path)
            undo()
            throw error
        }
        return asset
    }

    /// Creates `path` (0600, exclusively), lets `body` write it, sets its modification time,
    /// syncs and closes it.
    package static func writeFile(_ path: String, modificationDate: Date?, _ body: (Int32) throws(CaptureError) -> Void) throws(CaptureError) {
        let descriptor = try MediaLibraryFileSystem.createExclusive(path)
        do throws(CaptureError) {
            try body(descriptor)
            if let modificationDate { try MediaLibraryFileSystem.setModificationDate(modificationDate, of: descriptor, path: path) }
            try MediaLibraryFileSystem.sync(descriptor, path: path)
        } catch {
            close(descriptor)
            throw error
        }
        try MediaLibraryFileSystem.close(descriptor, path: path)
    }

    /// Copies the file at `source` to a new private file at `path`, keeping its modification
    /// time (the creation date of an untagged movie).
    package static func copyFile(_ source: String, to path: String) throws(CaptureError) {
        let input = try MediaLibraryFileSystem.openForReading(source)
        defer { close(input) }
        let status = try MediaLibraryFileSystem.status(of: input, path: source)
        try writeFile(path, modificationDate: MediaLibraryFileSystem.modificationDate(of: status)) { (descriptor) throws(CaptureError) in
            try MediaLibraryFileSystem.copy(from: input, sourcePath: source, to: descriptor, targetPath: path)
        }
    }

    /// Makes `path` a second name of the regular file `source` (same file system), private
    /// (0600) and synced. Returns what puts the source's mode back should the save fail; nil
    /// when a link cannot be made (another file system, a symbolic link, a file of another
    /// user…) and the file has to be copied.
    package static func linkPrivately(_ source: String, to path: String) throws(CaptureError) -> (() -> Void)? {
        var status = stat()
        guard lstat(source, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid() else { return nil }
        guard MediaLibraryFileSystem.retrying({ link(source, path) }) == 0 else {
            if [EXDEV, EPERM, EMLINK, EOPNOTSUPP, EACCES].contains(errno) { return nil }
            throw MediaLibraryFileSystem.error("link", path: path, "cannot move the movie into the library")
        }
        let originalMode = status.st_mode & 0o7777
        let restore = { _ = chmod(source, originalMode) }
        do throws(CaptureError) {
            let descriptor = try MediaLibraryFileSystem.openForReading(path)
            defer { close(descriptor) }
            try MediaLibraryFileSystem.check(MediaLibraryFileSystem.retrying { fchmod(descriptor, MediaLibraryFileSystem.fileMode) },
                                             "fchmod", path: path, "cannot make the file private")
            try MediaLibraryFileSystem.sync(descriptor, path: path)
        } catch {
            restore()
            MediaLibraryFileSystem.removeQuietly(path)
            throw error
        }
        return restore
    }

    /// Reads a photo the library is saving or finds: ``MediaAsset/init(url:id:)``, which reads
    /// HEIF with libheif (FFmpeg before 6.1 cannot open it) and JPEG and PNG with FFmpeg.
    /// Throws `.corruptFile` for an image that cannot be read or has no size.
    package static func inspectImage(at url: URL, id: String) throws(CaptureError) -> MediaAsset {
        let asset: MediaAsset
        do throws(CaptureError) {
            asset = try MediaAsset(url: url, id: id)
        } catch {
            throw CaptureError(.corruptFile, "the image cannot be read: \(error.message)", operation: error.operation, path: url.path)
        }
        guard asset.kind == .photo, asset.naturalSize.width > 0, asset.naturalSize.height > 0 else {
            throw CaptureError(.corruptFile, "the image cannot be read (no picture size)", path: url.path)
        }
        return asset
    }
}
