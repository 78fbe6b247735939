extension Duration {
    /// The duration in whole nanoseconds, as the monotonic clock and the kernel count.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
