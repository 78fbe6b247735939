import CaptureKitCore
package import CFFmpeg
import Foundation
import Glibc

/// An opened media file: one `AVFormatContext` with its stream information read. Shared by the
/// prober and the file-backed devices, so both report the same errors for the same file.
/// Used by one thread at a time (libavformat contexts are not thread-safe), hence unchecked.
package final class MediaInput: @unchecked Sendable {
    // Unchecked Sendable: an FFmpeg demuxer used by one thread at a time.
    package let context: UnsafeMutablePointer<AVFormatContext>
    package let path: String
    /// What the context's interrupt callback points at (a live stream's): kept alive as long as
    /// the context, which calls it until it is closed.
    private let interrupt: NetworkInterrupt?

    /// Opens `url` and reads its stream information: wraps `avformat_open_input` and
    /// `avformat_find_stream_info`. A missing or unreadable file gives `.fileError` with its
    /// errno; anything FFmpeg cannot make sense of gives `.unsupportedFile`.
    package init(url: URL) throws(CaptureError) {
        guard url.isFileURL else {
            throw CaptureError(.invalidArgument, "only file URLs can be opened, not \(url.absoluteString)")
        }
        let path = url.path
        self.path = path
        interrupt = nil
        try Self.checkReadable(path)
        try FFmpeg.prepare()
        var opened: UnsafeMutablePointer<AVFormatContext>?
        let (result, reason) = FFmpeg.withErrorLine { avformat_open_input(&opened, path, nil, nil) }
        guard result >= 0, let opened else {
            throw Self.openError(result, "avformat_open_input", path: path, what: "not a media file FFmpeg can read", reason: reason)
        }
        context = opened
        let (info, infoReason) = FFmpeg.withErrorLine { avformat_find_stream_info(opened, nil) }
        guard info >= 0 else {
            // Every stored property is set, so deinit closes the context.
            throw Self.openError(info, "avformat_find_stream_info", path: path, what: "cannot read the streams of the file", reason: infoReason)
        }
    }

    /// Opens the live stream at `address` (`rtsp://`, `rtmp://`, `srt://`, `http://`, `udp://`…)
    /// and reads its stream information: wraps `avformat_open_input` with libavformat's
    /// `options` and `format` (a demuxer name, for streams it cannot tell by their start) and
    /// `avformat_find_stream_info`, every blocking call bounded by `interrupt` and `timeout`.
    /// `name` is how errors show the stream (its URL redacted). A server that cannot be reached, refuses or
    /// stops answering gives `.connectionFailed`, one that wants credentials `.notAuthorized`,
    /// one that sends what FFmpeg cannot read `.unsupportedFormat`.
    package init(network address: String, shownAs name: String, format: String?, options: [String: String],
                 interrupt: NetworkInterrupt, timeout: MediaTime) throws(CaptureError) {
        path = name
        self.interrupt = interrupt
        try FFmpeg.prepare()
        let demuxer = format.flatMap { av_find_input_format($0) }
        if let format, demuxer == nil {
            throw CaptureError(.invalidArgument, "FFmpeg has no demuxer \(format)", path: name)
        }
        guard let allocated = avformat_alloc_context() else {
            throw CaptureError(.outOfMemory, "cannot allocate a demuxer", operation: "avformat_alloc_context", path: name)
        }
        allocated.pointee.interrupt_callback = interrupt.callback
        var dictionary: OpaquePointer?
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        defer { av_dict_free(&dictionary) }
        var opened: UnsafeMutablePointer<AVFormatContext>? = allocated
        interrupt.arm(timeout)
        // avformat_open_input frees the context when it fails.
        let (result, reason) = FFmpeg.withErrorLine { avformat_open_input(&opened, address, demuxer, &dictionary) }
        guard result >= 0, let opened else {
            // A server too slow to say what it sends failed to connect, whatever FFmpeg made of
            // the cut-short answer.
            let code: CaptureError.Code = result == FFmpeg.invalidData && !interrupt.timedOut ? .unsupportedFormat : .connectionFailed
            throw interrupt.error(result, reason: reason, doing: "cannot open \(name)", code: code, timeout: timeout)
        }
        context = opened
        interrupt.arm(timeout)
        let (info, infoReason) = FFmpeg.withErrorLine { avformat_find_stream_info(opened, nil) }
        guard info >= 0 else {
            throw interrupt.error(info, reason: infoReason, doing: "cannot read the streams of \(name)",
                                  code: interrupt.timedOut ? .connectionFailed : .unsupportedFormat, timeout: timeout)
        }
        interrupt.arm(nil)
    }

    /// libavformat's options for reading a live stream: no buffering that ages frames, probing
    /// only as long as the stream needs, and RTSP's transport.
    package static func liveOptions(for address: String, rtspTransport: RTSPTransport) -> [String: String] {
        var values = ["fflags": "nobuffer", "analyzeduration": "1000000", "probesize": "1000000"]
        if address.lowercased().hasPrefix("rtsp") { values["rtsp_transport"] = rtspTransport.rawValue }
        return values
    }

    deinit {
        var closing: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&closing)
    }

    /// The streams of the file.
    package var streams: [UnsafeMutablePointer<AVStream>] {
        let count = Int(context.pointee.nb_streams)
        guard count > 0, let list = context.pointee.streams else { return [] }
        return (0..<count).compactMap { list[$0] }
    }

    /// The stream FFmpeg considers the main one of `type` (what ffmpeg itself would pick): wraps
    /// `av_find_best_stream`. Nil when the file has none.
    package func bestStream(of type: AVMediaType) -> UnsafeMutablePointer<AVStream>? {
        let index = av_find_best_stream(context, type, -1, -1, nil, 0)
        guard index >= 0, index < Int32(context.pointee.nb_streams) else { return nil }
        return context.pointee.streams?[Int(index)]
    }

    /// Where the file's timeline starts, in microseconds (`AVFormatContext.start_time`): the
    /// zero every stream's timestamps are measured from, so audio and video keep their offset.
    package var startTimeMicroseconds: Int64? {
        let start = context.pointee.start_time
        return start == FFmpeg.noTimestamp ? nil : start
    }

    /// Throws `.fileError` for a path that does not exist, is a directory or cannot be read,
    /// with a message clearer than FFmpeg's.
    private static func checkReadable(_ path: String) throws(CaptureError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            throw CaptureError(.fileError, code == ENOENT ? "no such file" : "cannot open the file", errno: code, operation: "stat", path: path)
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw CaptureError(.fileError, "is a directory, not a media file", errno: EISDIR, operation: "stat", path: path)
        case S_IFIFO, S_IFSOCK:
            // Opening one waits for a writer, forever if none comes; media files can be sought.
            throw CaptureError(.unsupportedFile, "is a FIFO or a socket, not a media file", operation: "stat", path: path)
        default:
            break
        }
        guard access(path, R_OK) == 0 else {
            let code = errno
            throw CaptureError(.fileError, "cannot read the file", errno: code, operation: "access", path: path)
        }
    }

    /// The error for a file FFmpeg could not open: its own reason when it logged one (which
    /// says more than its error code), else the error code's text.
    private static func openError(_ result: Int32, _ operation: String, path: String, what: String, reason: String?) -> CaptureError {
        var error = FFmpeg.error(result, operation, code: .unsupportedFile, path: path)
        if error.code == .unsupportedFile {
            error.message = "\(what) (\(reason ?? FFmpeg.message(result)))"
            // The code's errno (EBUSY for a picture too large) would only contradict the reason.
            if reason != nil { error.errno = nil }
        }
        return error
    }
}

extension AVRational {
    /// Whether the rational is a usable positive number.
    package var isPositive: Bool { num > 0 && den > 0 }

    /// The rational as a media time (`num/den` seconds), or nil when it is not positive.
    package var mediaTime: MediaTime? { isPositive ? MediaTime(value: Int64(num), timescale: den) : nil }
}
