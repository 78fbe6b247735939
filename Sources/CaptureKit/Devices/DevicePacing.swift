/// When a made-up device (virtual or file-backed) produces its samples.
public enum DevicePacing: Sendable, Hashable {
    /// Like a live device: sample *n* is delivered once its time, counted from when the stream
    /// started, has passed on the monotonic clock.
    case realTime
    /// As fast as it can be produced and consumers take it; timestamps advance exactly as in
    /// real time (start + the sample's time), so recordings made from it are identical.
    /// Lossless consumers (a movie output) hold such a device back rather than drop from it.
    case unpaced
}
