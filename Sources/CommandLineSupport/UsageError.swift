/// A mistake in the command line: printed on one line with a pointer to `--help`, exit
/// status 64 (``ExitStatus/usage``).
public struct UsageError: Error, Sendable {
    /// What was wrong, naming the option or word.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }
}
