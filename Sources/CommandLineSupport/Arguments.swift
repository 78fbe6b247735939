import CaptureKit

/// A command's arguments, parsed against the options it accepts (``CommandOption``):
/// `--name value` or `--name=value` options, `--flag` switches and positional words (all words
/// after `--` are positional). Anything else, and any other word that starts with `-`, is a
/// ``UsageError``. An option given twice keeps every value (``values(_:)``); ``value(_:)`` is
/// the last.
public struct Arguments: Sendable {
    /// The words that are not options, in order.
    public private(set) var positional: [String] = []
    private var given: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// Parses `words` (the words after the command's name) against `options`.
    public init(_ words: [String], accepting options: [CommandOption]) throws(UsageError) {
        let byName = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            if word == "--" {
                // The usual end of options: what follows is positional even if it starts with -.
                positional.append(contentsOf: words[index...])
                break
            }
            guard word.hasPrefix("-"), word.count > 1 else {
                positional.append(word)
                continue
            }
            guard word.hasPrefix("--") else {
                // Never a file name by accident (`capture photo -x`): say so; `./-x` names it.
                throw UsageError("unknown option \(word) (a file whose name starts with - is ./\(word))")
            }
            var name = String(word.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let option = byName[name] else { throw UsageError("unknown option --\(name)") }
            if !option.takesValue {
                guard inlineValue == nil else { throw UsageError("--\(name) takes no value") }
                flags.insert(name)
            } else if let inlineValue {
                given[name, default: []].append(inlineValue)
            } else {
                guard index < words.count else { throw UsageError("--\(name) needs a value") }
                given[name, default: []].append(words[index])
                index += 1
            }
        }
    }

    /// Whether the switch `flag` was given.
    public func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// The value of option `name` (the last, when given more than once), or nil.
    public func value(_ name: String) -> String? { given[name]?.last }

    /// Every value of option `name`, in order.
    public func values(_ name: String) -> [String] { given[name] ?? [] }

    /// An integer option within `range`, or `defaultValue` when absent.
    public func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let text = value(name) else { return defaultValue }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("--\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// A `WIDTHxHEIGHT` option, or nil when absent.
    public func size(_ name: String) throws(UsageError) -> (width: Int, height: Int)? {
        guard let text = value(name) else { return nil }
        let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0 else {
            throw UsageError("--\(name) must look like 1280x720, not '\(text)'")
        }
        return (parts[0], parts[1])
    }

    /// A duration option: `10s`, `1.5s`, `500ms`, `2m`, `1h`, or plain seconds; nil when absent.
    public func duration(_ name: String) throws(UsageError) -> MediaTime? {
        guard let text = value(name)?.lowercased() else { return nil }
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("", 1)]
        for unit in units where text.hasSuffix(unit.suffix) {
            if let number = Double(text.dropLast(unit.suffix.count)), number > 0, number.isFinite {
                // Milliseconds are the finest unit: less would round to 0, which means no limit.
                guard number * unit.seconds >= 0.001 else { throw UsageError("--\(name) must be at least 1ms, not '\(text)'") }
                return MediaTime(seconds: number * unit.seconds, preferredTimescale: 1000)
            }
        }
        throw UsageError("--\(name) must look like 10s, 500ms or 2m, not '\(text)'")
    }
}
