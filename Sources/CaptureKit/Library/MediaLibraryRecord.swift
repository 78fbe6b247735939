import Foundation

/// One row of the library's index: what ``MediaLibrary`` knows about an asset without opening
/// its file.
struct MediaLibraryRecord: Sendable, Hashable {
    /// The library's id (a UUID string), also part of the file's name.
    var id: String
    /// Photo or video: which folder the file is in.
    var kind: MediaAsset.Kind
    /// The file's name, relative to the kind's folder (never a path: no `/`).
    var fileName: String
    /// When the asset was captured.
    var creationDate: Date
    /// The stored picture's width.
    var width: Int
    /// The stored picture's height.
    var height: Int
    /// Clockwise degrees that show it upright (``VideoTransform/rotation``).
    var rotation: Int
    /// How long it plays, exactly (value / timescale); zero for photos.
    var duration: MediaTime
    /// The file's size in bytes.
    var byteCount: Int64

    /// The record of an asset saved as `fileName`.
    init(asset: MediaAsset, fileName: String, byteCount: Int64) {
        id = asset.id
        kind = asset.kind
        self.fileName = fileName
        creationDate = asset.creationDate
        width = asset.naturalSize.width
        height = asset.naturalSize.height
        rotation = asset.preferredTransform.rotation
        duration = asset.duration.isNumeric ? asset.duration : .zero
        self.byteCount = byteCount
    }

    /// A record as read from the index.
    init(id: String, kind: MediaAsset.Kind, fileName: String, creationDate: Date, width: Int, height: Int, rotation: Int,
         duration: MediaTime, byteCount: Int64) {
        self.id = id
        self.kind = kind
        self.fileName = fileName
        self.creationDate = creationDate
        self.width = width
        self.height = height
        self.rotation = rotation
        self.duration = duration
        self.byteCount = byteCount
    }

    /// The asset, its file in `directory`.
    func asset(in directory: URL) -> MediaAsset {
        MediaAsset(indexedID: id, kind: kind, fileURL: directory.appendingPathComponent(fileName, isDirectory: false),
                   creationDate: creationDate, duration: duration, naturalSize: MediaAsset.Size(width: width, height: height),
                   preferredTransform: VideoTransform(rotation: rotation, isMirrored: false))
    }
}
