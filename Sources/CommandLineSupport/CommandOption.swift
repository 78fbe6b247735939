/// One option a command accepts — a `--name VALUE` option or a `--name` switch — with its line
/// of help. A command's list of them is the one source of both what ``Arguments`` accepts and
/// the option part of its `--help` text (``helpText(for:)``), so the two cannot disagree.
public struct CommandOption: Sendable {
    /// The name after `--`.
    public let name: String
    /// The value's placeholder in the help (`ID`, `T`), or nil for a switch.
    public let placeholder: String?
    /// What it does; a newline starts a continuation line.
    public let help: String

    /// `--name VALUE`: takes a value, as the next word or after `=`.
    public static func value(_ name: String, _ placeholder: String, _ help: String) -> CommandOption {
        CommandOption(name: name, placeholder: placeholder, help: help)
    }

    /// `--name`: a switch without a value.
    public static func flag(_ name: String, _ help: String) -> CommandOption {
        CommandOption(name: name, placeholder: nil, help: help)
    }

    /// Whether the option takes a value.
    public var takesValue: Bool { placeholder != nil }

    /// The options' help lines, names in one column and help aligned in the next.
    public static func helpText(for options: [CommandOption]) -> String {
        let names = options.map { option in "  --\(option.name)" + (option.placeholder.map { " \($0)" } ?? "") }
        let column = (names.map(\.count).max() ?? 0) + 2
        return zip(names, options).map { name, option in
            let lines = option.help.split(separator: "\n", omittingEmptySubsequences: false)
            let first = name.padding(toLength: column, withPad: " ", startingAt: 0) + (lines.first ?? "")
            return ([first] + lines.dropFirst().map { String(repeating: " ", count: column) + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
