import CaptureKitCore
internal import CFFmpeg
import Foundation

/// PNG files from camera frames with FFmpeg's PNG encoder (libavcodec): the frame is converted
/// to RGB once by libswscale (which knows the camera's limited range), optionally turned to an
/// ``EXIFOrientation``, and an `eXIf` chunk carries the EXIF block.
package enum PNGEncoder {
    /// Whether this FFmpeg build has a PNG encoder.
    package static var isAvailable: Bool { avcodec_find_encoder(AV_CODEC_ID_PNG) != nil }

    /// `frame` as a PNG file, its pixels turned by `orientation`, with `metadata` in an `eXIf`
    /// chunk (nil for none). Wraps avcodec_send_frame / avcodec_receive_packet.
    package static func encode(_ frame: PixelBuffer, applying orientation: EXIFOrientation = .up,
                               metadata: EXIFMetadata?) throws(CaptureError) -> Data {
        let rgb = frame.pixelFormat == .rgb24 ? frame
            : try PixelConverter.shared.convert(frame, to: .rgb24, width: frame.width, height: frame.height)
        let upright = try FrameRotation.turn(rgb, by: orientation)
        var file = try compress(upright)
        if let metadata {
            try insertEXIF(EXIFWriter.tiff(for: metadata), into: &file)
        }
        return file
    }

    private static func compress(_ frame: PixelBuffer) throws(CaptureError) -> Data {
        try FFmpeg.prepare()
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG) else {
            throw CaptureError(.unsupportedFormat, "this FFmpeg build has no PNG encoder", operation: "avcodec_find_encoder")
        }
        var context = avcodec_alloc_context3(codec)
        var picture = av_frame_alloc()
        var packet = av_packet_alloc()
        defer {
            avcodec_free_context(&context)
            av_frame_free(&picture)
            av_packet_free(&packet)
        }
        guard let context, let picture, let packet else {
            throw CaptureError(.outOfMemory, "cannot allocate a PNG encoder", operation: "avcodec_alloc_context3")
        }
        context.pointee.width = Int32(frame.width)
        context.pointee.height = Int32(frame.height)
        context.pointee.pix_fmt = AV_PIX_FMT_RGB24
        context.pointee.time_base = AVRational(num: 1, den: 1)
        try FFmpeg.check(avcodec_open2(context, codec, nil), "avcodec_open2(png)")

        picture.pointee.format = AV_PIX_FMT_RGB24.rawValue
        picture.pointee.width = Int32(frame.width)
        picture.pointee.height = Int32(frame.height)
        picture.pointee.pts = 0
        try frame.withUnsafeBytes(ofPlane: 0) { (raw) throws(CaptureError) in
            // The frame borrows the pixels (no AVBuffer); libavcodec copies them if it keeps them.
            picture.pointee.data.0 = UnsafeMutablePointer(mutating: raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
            picture.pointee.linesize.0 = Int32(frame.bytesPerRow(ofPlane: 0))
            try FFmpeg.check(avcodec_send_frame(context, picture), "avcodec_send_frame(png)")
            picture.pointee.data.0 = nil
        }
        try FFmpeg.check(avcodec_send_frame(context, nil), "avcodec_send_frame(png, flush)")
        try FFmpeg.check(avcodec_receive_packet(context, packet), "avcodec_receive_packet(png)")
        defer { av_packet_unref(packet) }
        return Data(bytes: packet.pointee.data, count: Int(packet.pointee.size))
    }

    /// Puts an `eXIf` chunk right after IHDR, before any image data, as the PNG 1.5 extension
    /// (and exiftool) expect.
    package static func insertEXIF(_ tiff: [UInt8], into file: inout Data) throws(CaptureError) {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let ihdrEnd = 8 + 4 + 4 + 13 + 4
        guard file.count > ihdrEnd, file.prefix(8).elementsEqual(signature),
              file[file.startIndex + 12..<file.startIndex + 16].elementsEqual(Array("IHDR".utf8)) else {
            throw CaptureError(.internalError, "the PNG encoder's output does not start with a signature and IHDR")
        }
        var chunk = [UInt8]()
        chunk.reserveCapacity(tiff.count + 12)
        let length = UInt32(tiff.count)
        chunk += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        chunk += Array("eXIf".utf8)
        chunk += tiff
        let crc = CRC32.checksum(chunk[4...])
        chunk += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        file.insert(contentsOf: chunk, at: file.startIndex + ihdrEnd)
    }
}

/// The CRC-32 of PNG chunks (ISO 3309, as zlib's `crc32`), over a few hundred bytes of EXIF at
/// most, so a table-driven loop is plenty.
package enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var c = UInt32(index)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    package static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
