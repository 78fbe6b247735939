internal import CALSA
import Glibc

/// The one place libasound return codes become `CaptureError`s, and the mapping between
/// ``AudioFormat/SampleFormat`` and `snd_pcm_format_t`.
enum ALSA {
    /// Returns `result` when it is not negative, otherwise throws with ALSA's message
    /// (`snd_strerror`), the call and the PCM name.
    @discardableResult
    static func check(_ result: Int32, _ operation: String, pcm: String, code: CaptureError.Code = .systemCallFailed) throws(CaptureError) -> Int32 {
        guard result < 0 else { return result }
        throw error(result, operation, pcm: pcm, code: code)
    }

    /// The error for a negative libasound return code (a negated errno). Codes that mean the
    /// same thing for every PCM get their own `CaptureError.Code`: a missing device, a busy one,
    /// one the user may not open, one that went away.
    static func error(_ result: Int32, _ operation: String, pcm: String, code: CaptureError.Code = .systemCallFailed) -> CaptureError {
        let number = -result
        let effective: CaptureError.Code
        switch number {
        case ENOENT, ENXIO: effective = .deviceNotFound
        case EBUSY: effective = .deviceBusy
        case EACCES, EPERM: effective = .notAuthorized
        case ENODEV: effective = .deviceDisconnected
        default: effective = code
        }
        let message = String(cString: snd_strerror(result))
        return CaptureError(effective, "ALSA PCM '\(pcm)': \(operation) failed: \(message)", errno: number > 0 && number < 4096 ? number : nil,
                            operation: operation, deviceID: ALSABackend.uniqueIDPrefix + pcm)
    }

    /// Call before using libasound: its own error printer writes to stderr, which belongs to the
    /// application; every failure is reported as a `CaptureError` instead. Runs once.
    static func prepare() { _ = silenced }
    private static let silenced: Void = ck_alsa_silence_errors()

    /// The little-endian interleaved ALSA format for `format` (`SND_PCM_FORMAT_S16_LE`, …).
    static func pcmFormat(_ format: AudioFormat.SampleFormat) -> snd_pcm_format_t {
        switch format {
        case .s16: return SND_PCM_FORMAT_S16_LE
        case .s32: return SND_PCM_FORMAT_S32_LE
        case .f32: return SND_PCM_FORMAT_FLOAT_LE
        }
    }
}
