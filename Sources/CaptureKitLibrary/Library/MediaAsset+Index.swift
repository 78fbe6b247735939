import CaptureKitCore
import CaptureKitMedia
import Foundation

extension MediaAsset {
    /// An asset rebuilt from the media library's index without opening its file: id, kind,
    /// file, creation date, duration, size and turn as the index recorded them when the asset
    /// was saved. `tracks` and `metadata` are whatever the caller has — empty for assets listed
    /// from the index; `MediaAsset(url:id:)` inspects the file itself and fills them in.
    package init(indexedID id: String, kind: Kind, fileURL: URL, creationDate: Date, duration: MediaTime, naturalSize: Size,
         preferredTransform: VideoTransform = .identity, tracks: [Track] = [], metadata: [String: String] = [:]) {
        self.id = id
        self.kind = kind
        self.fileURL = fileURL
        self.creationDate = creationDate
        self.duration = duration
        self.naturalSize = naturalSize
        self.preferredTransform = preferredTransform
        self.tracks = tracks
        self.metadata = metadata
    }

    /// This asset with another id and file (and creation date): what the library hands back
    /// after inspecting a file under its temporary name and renaming it into place.
    package func relocated(id: String, to fileURL: URL, creationDate: Date) -> MediaAsset {
        MediaAsset(indexedID: id, kind: kind, fileURL: fileURL, creationDate: creationDate, duration: duration,
                   naturalSize: naturalSize, preferredTransform: preferredTransform, tracks: tracks, metadata: metadata)
    }
}
