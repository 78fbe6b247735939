import CaptureKitCore
import CaptureKitMedia
import Foundation

/// One row of the library's index: what ``MediaLibrary`` knows about an asset without opening
/// its file.
package struct MediaLibraryRecord: Sendable, Hashable {
    /// The library's id (a UUID string), also part of the file's name.
    package var id: String
    /// Photo or video: which folder the file is in.
    package var kind: MediaAsset.Kind
    /// The file's name, relative to the kind's folder (never a path: no `/`).
    package var fileName: String
    /// When the asset was captured.
    package var creationDate: Date
    /// The stored picture's width.
    package var width: Int
    /// The stored picture's height.
    package var height: Int
    /// Clockwise degrees that show it upright (``VideoTransform/rotation``).
    package var rotation: Int
    /// How long it plays, exactly (value / timescale); zero for photos.
    package var duration: MediaTime
    /// The file's size in bytes.
    package var byteCount: Int64

    /// The record of an asset saved as `fileName`.
    package init(asset: MediaAsset, fileName: String, byteCount: Int64) {
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
    package init(id: String, kind: MediaAsset.Kind, fileName: String, creationDate: Date, width: Int, height: Int, rotation: Int,
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
    package func asset(in directory: URL) -> MediaAsset {
        MediaAsset(indexedID: id, kind: kind, fileURL: directory.appendingPathComponent(fileName, isDirectory: false),
                   creationDate: creationDate, duration: duration, naturalSize: MediaAsset.Size(width: width, height: height),
                   preferredTransform: VideoTransform(rotation: rotation, isMirrored: false))
    }
}
