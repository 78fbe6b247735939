import CaptureKitCore
package import CFFmpeg
import Foundation
import Glibc
import Synchronization

/// The one place FFmpeg return codes become `CaptureError`s: every libav* call that returns an
/// error code goes through ``check(_:_:code:path:)``, which names the call and keeps errno.
package enum FFmpeg {
    /// Returns `result` when it is not negative, otherwise throws with FFmpeg's message.
    @discardableResult
    package static func check(_ result: Int32, _ operation: String, _ what: String? = nil, code: CaptureError.Code = .internalError,
                      path: String? = nil) throws(CaptureError) -> Int32 {
        guard result < 0 else { return result }
        throw error(result, operation, what, code: code, path: path)
    }

    /// The error for a negative FFmpeg return code. `AVERROR(errno)` codes keep their errno;
    /// ENOSPC/EDQUOT/EFBIG become `.diskFull`, other file-system errnos `.fileError`.
    /// `what` says what failed in words ("cannot create /x.mov"); by default "operation failed".
    package static func error(_ result: Int32, _ operation: String, _ what: String? = nil, code: CaptureError.Code = .internalError,
                      path: String? = nil) -> CaptureError {
        let errnoValue = -result > 0 && -result < 4096 ? -result : nil
        var effectiveCode = code
        if let errnoValue, [ENOSPC, EDQUOT, EFBIG].contains(errnoValue) {
            effectiveCode = .diskFull
        } else if let errnoValue, [EACCES, EROFS, ENOENT, EIO, EISDIR, ENOTDIR, EPERM].contains(errnoValue) {
            effectiveCode = .fileError
        }
        return CaptureError(effectiveCode, "\(what ?? operation + " failed"): \(message(result))", errno: errnoValue,
                            operation: operation, path: path)
    }

    /// FFmpeg's text for an error code.
    package static func message(_ code: Int32) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            ck_av_strerror(code, buffer.baseAddress, 256)
            return String(cString: buffer.baseAddress!)
        }
    }

    /// Call before using libav*: opens FFmpeg's libraries (loaded on first use, not at process
    /// start: ``loadSharedLibrary(_:_:)``) and routes FFmpeg's own log lines (which it prints to
    /// stderr, the application's) to ``CaptureLog``, silent unless the application asked for
    /// them. Runs once; throws `.notSupported` when FFmpeg is not installed.
    package static func prepare() throws(CaptureError) { try prepared.get() }

    /// Starts ``prepare()`` on a thread of its own, once: what a session does as soon as it has
    /// an output that will encode, so that its first recording does not wait for the libraries
    /// to load (tens of milliseconds here, far more on a small board) while frames go by
    /// unrecorded. A failure is left for the encoder to throw.
    package static func prepareInBackground() {
        guard !warming.exchange(true, ordering: .relaxed) else { return }
        Thread.detachNewThread { _ = try? prepare() }
    }
    private static let warming = Atomic(false)
    private static let prepared = Result { () throws(CaptureError) in
        try loadSharedLibrary("FFmpeg", ck_ffmpeg_load)
        routeLogging()
    }

    private static func routeLogging() {
        av_log_set_level(AV_LOG_INFO)
        av_log_set_callback { context, level, format, arguments in
            let mapped: CaptureLog.Level = level <= AV_LOG_ERROR ? .error : level <= AV_LOG_WARNING ? .warning : .info
            let trapping = level <= AV_LOG_ERROR && Thread.current.threadDictionary[FFmpeg.errorTrapKey] != nil
            guard level <= AV_LOG_INFO, trapping || CaptureLog.wants(mapped), let format, let arguments else { return }
            var printPrefix: Int32 = 1
            let line = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 1024) { buffer -> String in
                av_log_format_line2(context, level, format, arguments, buffer.baseAddress, 1024, &printPrefix)
                return String(cString: buffer.baseAddress!)
            }
            let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { return }
            if trapping {
                // Without the "[demuxer @ 0x…] " prefix: the reason alone, for a person.
                var reason = text
                if text.hasPrefix("["), let end = text.range(of: "] ") { reason = String(text[end.upperBound...]) }
                let dictionary = Thread.current.threadDictionary
                if dictionary[FFmpeg.firstErrorKey] == nil || (dictionary[FFmpeg.errorTrapKey] as? String)?.isEmpty == true {
                    dictionary[FFmpeg.errorTrapKey] = CaptureLog.redacted(reason)
                }
            }
            if CaptureLog.wants(mapped) { CaptureLog.emit(mapped, "ffmpeg", text) }
        }
    }

    private static let errorTrapKey = "CaptureKit.FFmpeg.lastErrorLine"
    private static let firstErrorKey = "CaptureKit.FFmpeg.keepFirstErrorLine"

    /// Runs `body` and returns, beside its result, the last error line FFmpeg logged on this
    /// thread meanwhile: the reason its error codes leave out (a picture too large to decode
    /// fails with `AVERROR(EBUSY)`, "Device or resource busy"; the log says "Picture size
    /// 60000x60000 is invalid").
    /// `first` keeps the first line instead: the cause, where each layer above logs its own
    /// consequence ("Failed to resolve hostname x", then "Cannot open connection tcp://x").
    /// Call after ``prepare()``.
    package static func withErrorLine<T>(first: Bool = false, _ body: () -> T) -> (result: T, errorLine: String?) {
        let dictionary = Thread.current.threadDictionary
        dictionary[errorTrapKey] = ""
        if first { dictionary[firstErrorKey] = true }
        defer {
            dictionary.removeObject(forKey: errorTrapKey)
            dictionary.removeObject(forKey: firstErrorKey)
        }
        let result = body()
        let line = dictionary[errorTrapKey] as? String
        return (result, line?.isEmpty == false ? line : nil)
    }

    /// The encoder `name` with a context, a frame and a packet for it, allocated together: if one
    /// allocation fails, the others are freed. Wraps `avcodec_find_encoder_by_name`.
    package static func allocateEncoder(named name: String) throws(CaptureError)
        -> (encoder: UnsafePointer<AVCodec>, context: UnsafeMutablePointer<AVCodecContext>,
            frame: UnsafeMutablePointer<AVFrame>, packet: UnsafeMutablePointer<AVPacket>) {
        try prepare()
        guard let encoder = avcodec_find_encoder_by_name(name) else {
            throw CaptureError(.unsupportedFormat, "this FFmpeg has no \(name) encoder", operation: "avcodec_find_encoder_by_name")
        }
        var context = avcodec_alloc_context3(encoder)
        var frame = av_frame_alloc()
        var packet = av_packet_alloc()
        guard let allocatedContext = context, let allocatedFrame = frame, let allocatedPacket = packet else {
            avcodec_free_context(&context)
            av_frame_free(&frame)
            av_packet_free(&packet)
            throw CaptureError(.outOfMemory, "cannot allocate the \(name) encoder", operation: "avcodec_alloc_context3")
        }
        return (encoder, allocatedContext, allocatedFrame, allocatedPacket)
    }

    /// Tells an encoder no more frames come (a second flush, answered with EOF, is fine).
    package static func flushEncoder(_ context: UnsafeMutablePointer<AVCodecContext>, _ label: String) throws(CaptureError) {
        let result = avcodec_send_frame(context, nil)
        if result != eof { try check(result, "avcodec_send_frame(\(label), flush)") }
    }

    /// Hands every packet the encoder has ready to `write` (after `prepare`), unreferencing each
    /// afterwards. Wraps `avcodec_receive_packet`.
    package static func drainEncoder(_ context: UnsafeMutablePointer<AVCodecContext>, into packet: UnsafeMutablePointer<AVPacket>,
                             _ label: String, prepare: (UnsafeMutablePointer<AVPacket>) -> Void = { _ in },
                             write: (UnsafeMutablePointer<AVPacket>) throws(CaptureError) -> Void) throws(CaptureError) {
        while true {
            let result = avcodec_receive_packet(context, packet)
            if result == again || result == eof { return }
            try check(result, "avcodec_receive_packet(\(label))")
            defer { av_packet_unref(packet) }
            prepare(packet)
            try write(packet)
        }
    }

    /// Whether this FFmpeg build has the encoder `name` (libx265 is optional in some builds).
    package static func hasEncoder(_ name: String) -> Bool { avcodec_find_encoder_by_name(name) != nil }

    package static let eof = ck_averror_eof()
    package static let again = ck_averror_eagain()
    package static let noTimestamp = ck_nopts_value()
    /// `AVERROR_HTTP_UNAUTHORIZED` and `AVERROR_HTTP_FORBIDDEN` (`FFERRTAG(0xF8, '4', '0', '1')`
    /// and `'3'`), which Swift cannot import as macros.
    /// `AVERROR_INVALIDDATA` (`FFERRTAG('I', 'N', 'D', 'A')`).
    package static let invalidData: Int32 = -0x4144_4E49
    package static let httpUnauthorized: Int32 = -0x3130_34F8
    package static let httpForbidden: Int32 = -0x3330_34F8
}

