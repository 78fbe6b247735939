/// Polls `condition` every 20 ms until it holds or `timeout` has passed (a deadline, not a
/// rate), and returns whether it holds: for states nothing posts an event about (a preview's
/// viewer count, a kernel module's reference count).
func pollUntil(timeout: Duration = .seconds(30), _ condition: @escaping @Sendable () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}
