import CaptureKitCore
import CaptureKitMedia
import Foundation

extension MediaAsset {
    /// A HEIF or AVIF photo as libheif reads it (see ``init(url:id:)``): one video track of the
    /// upright picture, no transform, created when its EXIF block says it was captured.
    init(heif image: HEIFImage, url: URL, id: String) {
        let size = Size(width: image.width, height: image.height)
        let captured = image.exifPayload().flatMap { payload in
            payload.withUnsafeBytes { EXIFReader.dateTimeOriginal(ofEXIF: $0) }
        }
        self.init(indexedID: id, kind: .photo, fileURL: url, creationDate: captured ?? Self.modificationDate(of: url), duration: .zero,
                  naturalSize: size, preferredTransform: .identity,
                  tracks: [Track(mediaType: .video, codec: image.codec, naturalSize: size, sampleRate: nil, channelCount: nil,
                                 duration: .zero, nominalFrameRate: nil)])
    }
}
