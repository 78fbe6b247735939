import CommandLineSupport

/// One `capture` subcommand.
protocol Command {
    /// The word that selects it.
    static var name: String { get }
    /// One line for `capture --help`.
    static var summary: String { get }
    /// The full `--help` text.
    static var usage: String { get }
    /// Runs with the words after the subcommand name.
    static func run(_ words: [String]) throws -> ExitStatus
}
