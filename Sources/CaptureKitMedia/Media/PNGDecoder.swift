import CaptureKitCore
internal import CFFmpeg
import Foundation

/// PNG pictures decoded with FFmpeg's PNG decoder (libavcodec), fed the whole file as one
/// packet, then converted to BGRA by ``AssetImageScaler`` (palettes, grey, 16-bit and alpha
/// included), as the thumbnails are.
package enum PNGDecoder {
    /// The picture in `data` as BGRA at its own size. Wraps avcodec_send_packet /
    /// avcodec_receive_frame; data the decoder refuses throws `.corruptFile`.
    package static func decode(_ data: Data, path: String?) throws(CaptureError) -> PixelBuffer {
        try FFmpeg.prepare()
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_PNG) else {
            throw CaptureError(.unsupportedFormat, "this FFmpeg build has no PNG decoder", operation: "avcodec_find_decoder", path: path)
        }
        var context = avcodec_alloc_context3(codec)
        var frame = av_frame_alloc()
        var packet = av_packet_alloc()
        defer {
            avcodec_free_context(&context)
            av_frame_free(&frame)
            av_packet_free(&packet)
        }
        guard let context, let frame, let packet, data.count < Int(Int32.max) else {
            throw CaptureError(.outOfMemory, "cannot allocate a PNG decoder", operation: "avcodec_alloc_context3", path: path)
        }
        try FFmpeg.check(avcodec_open2(context, codec, nil), "avcodec_open2(png)", path: path)
        try FFmpeg.check(av_new_packet(packet, Int32(data.count)), "av_new_packet", code: .outOfMemory, path: path)
        data.copyBytes(to: packet.pointee.data, count: data.count)
        try FFmpeg.check(avcodec_send_packet(context, packet), "avcodec_send_packet(png)", "not a PNG image FFmpeg can decode",
                         code: .corruptFile, path: path)
        try FFmpeg.check(avcodec_send_packet(context, nil), "avcodec_send_packet(png, flush)", code: .corruptFile, path: path)
        try FFmpeg.check(avcodec_receive_frame(context, frame), "avcodec_receive_frame(png)", "not a PNG image FFmpeg can decode",
                         code: .corruptFile, path: path)
        defer { av_frame_unref(frame) }
        return try AssetImageScaler(path: path ?? "").bgra(from: frame, width: Int(frame.pointee.width), height: Int(frame.pointee.height))
    }
}
