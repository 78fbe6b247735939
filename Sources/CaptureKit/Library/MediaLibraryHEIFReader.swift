internal import CHeif
import Foundation

/// Reads what the library needs of a HEIF file that FFmpeg cannot open (FFmpeg before 6.1 has
/// no HEIF image demuxer): that it is a HEIF image libheif can parse, and its size.
enum MediaLibraryHEIFReader {
    /// libheif wants one `heif_init` before use (reference counted, so it is harmless if the
    /// encoder did it too).
    private static let initialized: Bool = heif_init(nil).code == heif_error_Ok

    /// The stored size (`ispe`) of the primary image of the HEIF file at `url`: wraps
    /// `heif_context_read_from_memory_without_copy`, `heif_context_get_primary_image_handle`
    /// and `heif_image_handle_get_ispe_width/height`. Throws `.corruptFile` when libheif
    /// cannot parse it.
    static func size(of url: URL) throws(CaptureError) -> MediaAsset.Size {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CaptureError(.fileError, "cannot read the HEIF file: \(error.localizedDescription)", path: url.path)
        }
        _ = initialized
        guard let context = heif_context_alloc() else {
            throw CaptureError(.outOfMemory, "cannot allocate a HEIF context", operation: "heif_context_alloc")
        }
        defer { heif_context_free(context) }
        // Data.withUnsafeBytes rethrows untyped errors: the outcome comes out as a Result.
        let outcome = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Result<MediaAsset.Size, CaptureError> in
            let read = heif_context_read_from_memory_without_copy(context, raw.baseAddress, raw.count, nil)
            guard read.code == heif_error_Ok else { return .failure(failure(read, "heif_context_read_from_memory_without_copy", url)) }
            var handle: OpaquePointer?
            let primary = heif_context_get_primary_image_handle(context, &handle)
            guard primary.code == heif_error_Ok, let handle else {
                return .failure(failure(primary, "heif_context_get_primary_image_handle", url))
            }
            defer { heif_image_handle_release(handle) }
            let size = MediaAsset.Size(width: Int(heif_image_handle_get_ispe_width(handle)), height: Int(heif_image_handle_get_ispe_height(handle)))
            guard size.width > 0, size.height > 0 else {
                return .failure(CaptureError(.corruptFile, "the HEIF image has no size", operation: "heif_image_handle_get_ispe_width", path: url.path))
            }
            return .success(size)
        }
        return try outcome.get()
    }

    private static func failure(_ error: heif_error, _ operation: String, _ url: URL) -> CaptureError {
        let message = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        return CaptureError(.corruptFile, "not a HEIF image libheif can read: \(message)", operation: operation, path: url.path)
    }
}
