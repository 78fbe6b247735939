/// A benchmark that could not run or measure: a peer tool that failed, a file that could not
/// be written, a session that never delivered.
struct BenchError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
