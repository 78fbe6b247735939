/// A mistake on the command line: printed on one line, exit status 64.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
