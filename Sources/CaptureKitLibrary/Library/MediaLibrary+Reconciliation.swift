import CaptureKitCore
import CaptureKitMedia
import Foundation
import Glibc

extension MediaLibrary {
    /// Brings the folders and the index back in line after a crash (see the type's notes):
    /// removes temporary files and rows whose file is gone, indexes complete library-named
    /// files that have no row, leaves every other file alone. Runs only when no save or delete
    /// is in progress anywhere (the lock is free); returns nil when it was skipped. A folder
    /// that cannot be listed is skipped (its rows are kept). Throws for index errors only.
    @discardableResult
    package func reconcile() throws(CaptureError) -> MediaLibraryReconciliation? {
        guard let lock = try MediaLibraryLock.exclusiveIfFree(lockURL.path) else { return nil }
        defer { withExtendedLifetime(lock) {} }
        var report = MediaLibraryReconciliation()

        // The files, and temporary files of writes that never finished (nobody is writing).
        var listed: [MediaAsset.Kind: Set<String>] = [:]
        for kind in MediaAsset.Kind.allCases {
            let folder = directory(for: kind).path
            guard let names = try? MediaLibraryFileSystem.contents(of: folder) else { continue }
            var files = Set<String>()
            for name in names {
                guard name.hasPrefix(Self.temporaryPrefix) else {
                    files.insert(name)
                    continue
                }
                if (try? MediaLibraryFileSystem.remove(folder + "/" + name)) != nil {
                    report.removedTemporaryFiles.append(directory(for: kind).lastPathComponent + "/" + name)
                }
            }
            listed[kind] = files
            if !report.removedTemporaryFiles.isEmpty { try? MediaLibraryFileSystem.syncDirectory(folder) }
        }

        // Rows whose file is gone.
        let rows = try index.withLock { index throws(CaptureError) in try index.files() }
        var indexedIDs = Set(rows.map(\.id))
        var indexedNames: [MediaAsset.Kind: Set<String>] = [:]
        var missing: [String] = []
        for row in rows {
            guard let kind = MediaAsset.Kind(rawValue: row.kind) else { continue }
            indexedNames[kind, default: []].insert(row.fileName)
            if let files = listed[kind], !files.contains(row.fileName) { missing.append(row.id) }
        }
        if !missing.isEmpty {
            try index.withLock { index throws(CaptureError) in
                try index.database.transaction("remove the rows of missing files") { () throws(CaptureError) in
                    for id in missing { try index.delete(id: id) }
                }
            }
            report.removedRows = missing
            indexedIDs.subtract(missing)
        }

        // Files without a row: complete (renamed into place after their sync) when the library
        // named them; anything else is not the library's to index or remove.
        for kind in MediaAsset.Kind.allCases {
            guard let files = listed[kind] else { continue }
            let known = indexedNames[kind] ?? []
            for name in files.sorted() where !known.contains(name) {
                let url = directory(for: kind).appendingPathComponent(name, isDirectory: false)
                guard let id = Self.id(fromFileName: name), !indexedIDs.contains(id),
                      let (asset, byteCount) = Self.inspectFile(url, id: id, kind: kind) else {
                    report.ignoredFiles.append(directory(for: kind).lastPathComponent + "/" + name)
                    continue
                }
                try index.withLock { index throws(CaptureError) in
                    try index.insert(MediaLibraryRecord(asset: asset, fileName: name, byteCount: byteCount))
                }
                indexedIDs.insert(id)
                report.indexedFiles.append(id)
            }
        }
        return report
    }

    /// A complete regular file found in `kind`'s folder, read as an asset of that kind with
    /// its size; nil when it is not one.
    private static func inspectFile(_ url: URL, id: String, kind: MediaAsset.Kind) -> (MediaAsset, Int64)? {
        var status = stat()
        guard lstat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        let asset: MediaAsset?
        switch kind {
        case .photo:
            asset = try? inspectImage(at: url, id: id)
        case .video:
            asset = try? MediaAsset(url: url, id: id)
        }
        guard let asset, asset.kind == kind else { return nil }
        return (asset, Int64(status.st_size))
    }
}
