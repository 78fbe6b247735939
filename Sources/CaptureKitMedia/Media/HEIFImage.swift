import CaptureKitCore
package import CFFmpeg
internal import CHeif
import Foundation

/// A HEIF (or AVIF) still read with libheif: FFmpeg before 6.1 has no HEIF demuxer, so the
/// probe (``MediaFileInfo``), the library's assets (`MediaAsset`, its EXIF date through
/// ``exifPayload()``) and the thumbnails (``AssetFrameSeeker``) read HEIF files here. The picture is the primary image as libheif shows it — turned and mirrored by
/// its `irot`/`imir` boxes, which is how CaptureKit writes a photo's orientation — so its size
/// is the upright size and it needs no further transform.
package final class HEIFImage {
    /// libheif wants one `heif_init` before use (reference counted, so it is harmless if the
    /// encoder did it too).
    /// libheif is opened on first use (``loadSharedLibrary(_:_:)``): false when it is not installed.
    private static let initialized: Bool = ck_heif_load(nil, 0) == 0 && heif_init(nil).code == heif_error_Ok

    /// The file read; empty for an image read from memory.
    package let path: String
    /// The upright picture's size.
    package let width: Int
    package let height: Int
    /// Whether the image has an alpha plane.
    package let hasAlpha: Bool
    /// FFmpeg's name of the codec the image is coded with: `hevc` (HEIF) or `av1` (AVIF).
    package let codec: String
    private let context: OpaquePointer
    private let handle: OpaquePointer
    /// ``path`` for errors: none for an image read from memory.
    private var namedPath: String? { path.isEmpty ? nil : path }
    /// The bytes of an image read from memory, which libheif reads in place for as long as the
    /// context lives.
    private let memory: UnsafeMutableRawBufferPointer?

    /// Whether the file at `url` starts like a HEIF or AVIF still (its `ftyp` brands).
    package static func isHEIF(_ url: URL) -> Bool {
        head(of: url).map(isHEIF) ?? false
    }

    /// Whether `data` starts like a HEIF or AVIF still: a HEIF image brand (`heic`, `heix`,
    /// `mif1`…) or `avif` among its `ftyp` brands (``FileTypeBox``), or a file
    /// `heif_check_filetype` says libheif reads.
    package static func isHEIF(_ data: Data) -> Bool {
        guard initialized, data.count >= 12 else { return false }
        if FileTypeBox(data)?.isHEIFImage == true { return true }
        return Data(data.prefix(64)).withUnsafeBytes { bytes in
            heif_check_filetype(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(bytes.count)) == heif_filetype_yes_supported
        }
    }

    /// The first 64 bytes of a regular file (opening a FIFO to look would wait for a writer
    /// forever), where its `ftyp` brands are.
    private static func head(of url: URL) -> Data? {
        var info = stat()
        guard stat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, let file = FileHandle(forReadingAtPath: url.path) else { return nil }
        defer { try? file.close() }
        return try? file.read(upToCount: 64)
    }

    /// Parses the file and finds its primary image: wraps `heif_context_read_from_file` and
    /// `heif_context_get_primary_image_handle`. Throws `.corruptFile` when libheif cannot.
    package convenience init(url: URL) throws(CaptureError) {
        try self.init(path: url.path, isAVIF: Self.head(of: url).map(Self.isAVIF) ?? false, memory: nil) { context in
            (heif_context_read_from_file(context, url.path, nil), "heif_context_read_from_file")
        }
    }

    /// As ``init(url:)`` for a file's bytes (a photo's data), copied once and read in place
    /// (`heif_context_read_from_memory_without_copy`).
    package convenience init(data: Data) throws(CaptureError) {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 16)
        data.copyBytes(to: memory)
        try self.init(path: "", isAVIF: Self.isAVIF(data), memory: memory) { context in
            (heif_context_read_from_memory_without_copy(context, memory.baseAddress, data.count, nil), "heif_context_read_from_memory_without_copy")
        }
    }

    /// Takes `memory` (freed with the image, or here when reading fails).
    private init(path: String, isAVIF: Bool, memory: UnsafeMutableRawBufferPointer?,
                 read: (OpaquePointer) -> (heif_error, String)) throws(CaptureError) {
        self.path = path
        let named: String? = path.isEmpty ? nil : path
        do throws(CaptureError) {
            try loadSharedLibrary("libheif", ck_heif_load)
        } catch {
            memory?.deallocate()
            throw error
        }
        guard Self.initialized, let context = heif_context_alloc() else {
            memory?.deallocate()
            throw CaptureError(.outOfMemory, "cannot allocate a HEIF context", operation: "heif_context_alloc", path: named)
        }
        // An error's message belongs to the context: it is copied before the context is freed.
        let (result, operation) = read(context)
        guard result.code == heif_error_Ok else {
            let error = Self.failure(result, operation, named)
            heif_context_free(context)
            memory?.deallocate()
            throw error
        }
        var handle: OpaquePointer?
        let primary = heif_context_get_primary_image_handle(context, &handle)
        guard primary.code == heif_error_Ok, let handle else {
            let error = Self.failure(primary, "heif_context_get_primary_image_handle", named)
            heif_context_free(context)
            memory?.deallocate()
            throw error
        }
        self.context = context
        self.handle = handle
        self.memory = memory
        width = Int(heif_image_handle_get_width(handle))
        height = Int(heif_image_handle_get_height(handle))
        hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0
        codec = isAVIF ? "av1" : "hevc"
        guard width > 0, height > 0 else {
            throw CaptureError(.corruptFile, "the HEIF image has no size", operation: "heif_image_handle_get_width", path: named)
        }
    }

    deinit {
        heif_image_handle_release(handle)
        heif_context_free(context)
        memory?.deallocate()
    }

    /// The primary image's EXIF block as a JPEG's APP1 payload (`"Exif\0\0"` and the TIFF
    /// structure, what ``EXIFReader`` reads), or nil when it has none or it is damaged. Wraps
    /// `heif_image_handle_get_list_of_metadata_block_IDs` and `heif_image_handle_get_metadata`;
    /// an `Exif` item starts with the 32-bit offset of the TIFF header after those 4 bytes.
    package func exifPayload() -> [UInt8]? {
        var id: heif_item_id = 0
        guard heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) == 1 else { return nil }
        let size = heif_image_handle_get_metadata_size(handle, id)
        guard size > 4, size <= 1 << 24 else { return nil }
        var block = [UInt8](repeating: 0, count: size)
        let read = block.withUnsafeMutableBytes { heif_image_handle_get_metadata(handle, id, $0.baseAddress) }
        guard read.code == heif_error_Ok else { return nil }
        let offset = Int(block[0]) << 24 | Int(block[1]) << 16 | Int(block[2]) << 8 | Int(block[3])
        guard offset < size - 4 - 8 else { return nil }
        let tiff = block[(4 + offset)...]
        guard tiff.starts(with: Array("II*\0".utf8)) || tiff.starts(with: Array("MM\0*".utf8)) else { return nil }
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// Decodes the picture into `frame` as RGBA (or opaque RGB in RGBA), replacing what it
    /// held. Wraps `heif_decode_image` (`heif_chroma_interleaved_RGBA`) and
    /// `heif_image_get_plane_readonly`; throws `.corruptFile` for data libheif cannot decode.
    package func decode(into frame: UnsafeMutablePointer<AVFrame>) throws(CaptureError) {
        var image: OpaquePointer?
        let decoded = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, nil)
        guard decoded.code == heif_error_Ok, let image else { throw Self.failure(decoded, "heif_decode_image", namedPath) }
        defer { heif_image_release(image) }
        var stride: Int32 = 0
        guard let source = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride), stride > 0 else {
            throw CaptureError(.corruptFile, "libheif decoded no picture", operation: "heif_image_get_plane_readonly", path: namedPath)
        }
        let decodedWidth = Int(heif_image_get_width(image, heif_channel_interleaved))
        let decodedHeight = Int(heif_image_get_height(image, heif_channel_interleaved))
        av_frame_unref(frame)
        frame.pointee.format = AV_PIX_FMT_RGBA.rawValue
        frame.pointee.width = Int32(decodedWidth)
        frame.pointee.height = Int32(decodedHeight)
        try FFmpeg.check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer", code: .outOfMemory, path: namedPath)
        guard let target = frame.pointee.data.0 else {
            throw CaptureError(.outOfMemory, "cannot allocate a picture", operation: "av_frame_get_buffer", path: namedPath)
        }
        let rowBytes = decodedWidth * 4
        for row in 0..<decodedHeight {
            memcpy(target + row * Int(frame.pointee.linesize.0), source + row * Int(stride), rowBytes)
        }
    }

    /// The picture as a new BGRA buffer (``decode(into:)``, then ``AssetImageScaler``), for
    /// ``CaptureImage``.
    package func bgra() throws(CaptureError) -> PixelBuffer {
        var frame = av_frame_alloc()
        defer { av_frame_free(&frame) }
        guard let frame else { throw CaptureError(.outOfMemory, "cannot allocate a frame", operation: "av_frame_alloc", path: namedPath) }
        try decode(into: frame)
        return try AssetImageScaler(path: path).bgra(from: frame, width: Int(frame.pointee.width), height: Int(frame.pointee.height))
    }

    /// AVIF's brands (`avif`, `avis`) as the file's major brand.
    private static func isAVIF(_ head: Data) -> Bool {
        FileTypeBox(head)?.isAVIF ?? false
    }

    private static func failure(_ error: heif_error, _ operation: String, _ path: String?) -> CaptureError {
        // One line, whatever the library wrote.
        let message = (error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)")
            .split(whereSeparator: \.isNewline).joined(separator: " ")
        return CaptureError(.corruptFile, "not a HEIF image libheif can read: \(message)", operation: operation, path: path)
    }
}
