/// Moves a value that is not thread-safe (an open PCM, a V4L2 ring and its reader), made on the
/// caller's thread, onto the worker thread that will be its only user: the worker takes it out
/// once, and the hand-off keeps no reference after that (so the value closes when the worker
/// lets go of it). Unchecked because the one take happens-after the hand-off, when the worker
/// thread starts.
package final class ThreadHandOff<Value>: @unchecked Sendable {
    // Unchecked Sendable: moves a value into a thread body exactly once (Foundation.Thread takes only @Sendable closures).
    private var value: Value?

    package init(_ value: Value) { self.value = value }

    /// The value, the first time; nil after.
    package func take() -> Value? {
        defer { value = nil }
        return value
    }
}
