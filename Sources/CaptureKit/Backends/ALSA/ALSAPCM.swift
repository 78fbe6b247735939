internal import CALSA
import Glibc

/// One open ALSA capture PCM (`snd_pcm_t`), owned by one thread at a time: the discovery call
/// that probes it, or the stream thread that reads it. Closed when released.
final class ALSAPCM {
    /// The PCM's ALSA name (`hw:CARD=PCH,DEV=0`, `plughw:1,0`, `pulse`, a name from an asoundrc).
    let name: String
    private let handle: OpaquePointer

    /// The sample rates and channel counts formats are probed at. ALSA reports ranges; these
    /// are the points of them applications use.
    static let probedRates = [48_000, 44_100, 32_000, 22_050, 16_000, 8_000, 96_000, 192_000]
    static let probedChannelCounts = [1, 2, 4, 6, 8]

    /// Opens `name` for capture in non-blocking mode, so neither discovery nor a read ever
    /// waits on a busy or stalled device. Wraps `snd_pcm_open`.
    init(name: String) throws(CaptureError) {
        ALSA.prepare()
        var pcm: OpaquePointer?
        try ALSA.check(snd_pcm_open(&pcm, name, SND_PCM_STREAM_CAPTURE, ck_alsa_nonblock()), "snd_pcm_open", pcm: name,
                       code: .deviceNotFound)
        guard let pcm else { throw ALSA.error(-ENOMEM, "snd_pcm_open", pcm: name) }
        self.name = name
        handle = pcm
    }

    deinit { snd_pcm_close(handle) }

    /// Every interleaved format the PCM accepts, checked jointly (a sample format, then a channel
    /// count with it, then a rate with both): best first — s16 before s32 before f32, fewer
    /// channels first, 48 kHz first. Wraps `snd_pcm_hw_params_test_*`.
    func supportedFormats() -> [AudioFormat] {
        guard let any = try? HardwareParameters(), let trial = try? HardwareParameters(), let withChannels = try? HardwareParameters(),
              snd_pcm_hw_params_any(handle, any.pointer) >= 0,
              snd_pcm_hw_params_set_access(handle, any.pointer, SND_PCM_ACCESS_RW_INTERLEAVED) >= 0 else { return [] }
        var formats: [AudioFormat] = []
        for sampleFormat in AudioFormat.SampleFormat.allCases {
            snd_pcm_hw_params_copy(trial.pointer, any.pointer)
            guard snd_pcm_hw_params_set_format(handle, trial.pointer, ALSA.pcmFormat(sampleFormat)) >= 0 else { continue }
            for channels in Self.probedChannelCounts {
                snd_pcm_hw_params_copy(withChannels.pointer, trial.pointer)
                guard snd_pcm_hw_params_set_channels(handle, withChannels.pointer, UInt32(channels)) >= 0 else { continue }
                for rate in Self.probedRates where snd_pcm_hw_params_test_rate(handle, withChannels.pointer, UInt32(rate), 0) >= 0 {
                    formats.append(AudioFormat(sampleRate: rate, channelCount: channels, sampleFormat: sampleFormat))
                }
            }
        }
        return formats
    }

    /// What the PCM agreed to in ``configure(_:periodFrames:periods:)``.
    struct Geometry {
        /// Frames per period: how much one read waits for, so the capture latency.
        var periodFrames: Int
        /// Frames the PCM buffers before it overruns.
        var bufferFrames: Int
    }

    /// Sets the exact format, a period near `periodFrames` and a buffer near `periods` periods,
    /// and wakes the reader once per period. Wraps `snd_pcm_hw_params` and `snd_pcm_sw_params`.
    /// (Capture times come from the monotonic clock corrected by ``delay()``, which works for
    /// every plugin, rather than from `snd_pcm_status` timestamps, which many plugins lack.)
    func configure(_ format: AudioFormat, periodFrames: Int, periods: Int) throws(CaptureError) -> Geometry {
        let hw = try HardwareParameters()
        try ALSA.check(snd_pcm_hw_params_any(handle, hw.pointer), "snd_pcm_hw_params_any", pcm: name)
        try ALSA.check(snd_pcm_hw_params_set_access(handle, hw.pointer, SND_PCM_ACCESS_RW_INTERLEAVED),
                       "snd_pcm_hw_params_set_access(RW_INTERLEAVED)", pcm: name, code: .unsupportedFormat)
        try ALSA.check(snd_pcm_hw_params_set_format(handle, hw.pointer, ALSA.pcmFormat(format.sampleFormat)),
                       "snd_pcm_hw_params_set_format(\(format.sampleFormat))", pcm: name, code: .unsupportedFormat)
        try ALSA.check(snd_pcm_hw_params_set_channels(handle, hw.pointer, UInt32(format.channelCount)),
                       "snd_pcm_hw_params_set_channels(\(format.channelCount))", pcm: name, code: .unsupportedFormat)
        try ALSA.check(snd_pcm_hw_params_set_rate(handle, hw.pointer, UInt32(format.sampleRate), 0),
                       "snd_pcm_hw_params_set_rate(\(format.sampleRate))", pcm: name, code: .unsupportedFormat)
        var period = snd_pcm_uframes_t(periodFrames)
        var direction: Int32 = 0
        try ALSA.check(snd_pcm_hw_params_set_period_size_near(handle, hw.pointer, &period, &direction),
                       "snd_pcm_hw_params_set_period_size_near", pcm: name, code: .unsupportedFormat)
        var buffer = period * snd_pcm_uframes_t(periods)
        try ALSA.check(snd_pcm_hw_params_set_buffer_size_near(handle, hw.pointer, &buffer),
                       "snd_pcm_hw_params_set_buffer_size_near", pcm: name, code: .unsupportedFormat)
        try ALSA.check(snd_pcm_hw_params(handle, hw.pointer), "snd_pcm_hw_params", pcm: name, code: .unsupportedFormat)
        snd_pcm_hw_params_get_period_size(hw.pointer, &period, &direction)
        snd_pcm_hw_params_get_buffer_size(hw.pointer, &buffer)

        var sw: OpaquePointer?
        try ALSA.check(snd_pcm_sw_params_malloc(&sw), "snd_pcm_sw_params_malloc", pcm: name, code: .outOfMemory)
        defer { snd_pcm_sw_params_free(sw) }
        try ALSA.check(snd_pcm_sw_params_current(handle, sw), "snd_pcm_sw_params_current", pcm: name)
        try ALSA.check(snd_pcm_sw_params_set_avail_min(handle, sw, period), "snd_pcm_sw_params_set_avail_min", pcm: name)
        try ALSA.check(snd_pcm_sw_params(handle, sw), "snd_pcm_sw_params", pcm: name)
        return Geometry(periodFrames: Int(period), bufferFrames: Int(buffer))
    }

    /// Starts capturing (after `configure` or a recovery). Wraps `snd_pcm_start`.
    func start() throws(CaptureError) {
        try ALSA.check(snd_pcm_start(handle), "snd_pcm_start", pcm: name)
    }

    /// Waits up to `milliseconds` for a period to be readable: > 0 ready, 0 timeout, < 0 an
    /// error code (an xrun shows up here as -EPIPE). Wraps `snd_pcm_wait`.
    func wait(milliseconds: Int32) -> Int32 { snd_pcm_wait(handle, milliseconds) }

    /// Reads up to `frames` interleaved frames: the count read, or a negative error code
    /// (-EAGAIN: nothing yet; -EPIPE: overrun; -ESTRPIPE: suspended). Wraps `snd_pcm_readi`.
    func read(into bytes: UnsafeMutableRawPointer, frames: Int) -> Int {
        snd_pcm_readi(handle, bytes, snd_pcm_uframes_t(frames))
    }

    /// Whether the card went away under the open PCM (unplugged, its driver unbound). Calls then
    /// fail with whatever libasound makes of it (`snd_pcm_wait` says -EIO, a read may say
    /// -EBADFD), so the kernel is asked: the state is DISCONNECTED (or -ENODEV when the hw
    /// plugin cannot even read it), or the PCM's info ioctl answers -ENODEV, as every call on a
    /// disconnected card does. Wraps `snd_pcm_state` and `snd_pcm_info`.
    var isDisconnected: Bool {
        let state = snd_pcm_state(handle)
        if state == SND_PCM_STATE_DISCONNECTED || Int32(bitPattern: state.rawValue) == -ENODEV { return true }
        var info: OpaquePointer?
        guard snd_pcm_info_malloc(&info) >= 0, let info else { return false }
        defer { snd_pcm_info_free(info) }
        return snd_pcm_info(handle, info) == -ENODEV
    }

    /// Frames captured but not yet read, or nil when the PCM cannot say. Wraps `snd_pcm_delay`.
    func delay() -> Int? {
        var frames: snd_pcm_sframes_t = 0
        guard snd_pcm_delay(handle, &frames) >= 0, frames >= 0 else { return nil }
        return frames
    }

    /// Recovers from an overrun or a suspend and restarts capture: 0, or the error that could
    /// not be recovered. Wraps `snd_pcm_recover` (silently: CaptureKit reports the xrun itself).
    func recover(from error: Int32) -> Int32 {
        let recovered = snd_pcm_recover(handle, error, 1)
        guard recovered >= 0 else { return recovered }
        return min(0, snd_pcm_start(handle))
    }

    /// A `snd_pcm_hw_params_t` on the heap (the `alloca` form is a macro Swift cannot call).
    private final class HardwareParameters {
        let pointer: OpaquePointer

        init() throws(CaptureError) {
            var parameters: OpaquePointer?
            guard snd_pcm_hw_params_malloc(&parameters) >= 0, let parameters else {
                throw CaptureError(.outOfMemory, "cannot allocate ALSA hardware parameters", operation: "snd_pcm_hw_params_malloc")
            }
            pointer = parameters
        }

        deinit { snd_pcm_hw_params_free(pointer) }
    }
}
