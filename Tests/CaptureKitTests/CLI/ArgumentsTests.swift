import CommandLineSupport
import Testing

/// The command-line parser both tools use, and the option tables that make both what a command
/// accepts and its `--help` lines.
@Suite(.excludable)
struct ArgumentsTests {
    static let options: [CommandOption] = [
        .value("device", "ID", "camera unique ID or name"),
        .value("set", "NAME=VALUE", "change a control first (repeatable);\nVALUE is a number"),
        .flag("json", "print JSON"),
    ]

    @Test func valuesFlagsAndPositionalWords() throws {
        let arguments = try Arguments(["out.mov", "--device", "cam", "--set=a=1", "--json", "--set", "b=2", "--", "--not-an-option"],
                                      accepting: Self.options)
        #expect(arguments.positional == ["out.mov", "--not-an-option"])
        #expect(arguments.value("device") == "cam")
        #expect(arguments.values("set") == ["a=1", "b=2"], "a repeated option keeps every value, in order")
        #expect(arguments.value("set") == "b=2")
        #expect(arguments.has("json") && !arguments.has("device"))
    }

    @Test(arguments: [
        (["--frames", "3"], "unknown option --frames"),
        (["--device"], "--device needs a value"),
        (["--json=yes"], "--json takes no value"),
        (["-x"], "unknown option -x (a file whose name starts with - is ./-x)"),
    ])
    func mistakesAreUsageErrorsThatNameTheWord(words: [String], message: String) {
        let error = #expect(throws: UsageError.self) { try Arguments(words, accepting: Self.options) }
        #expect(error?.message == message)
    }

    @Test func typedValuesSayWhatTheyWant() throws {
        let table: [CommandOption] = [.value("count", "N", ""), .value("size", "WxH", ""), .value("duration", "T", "")]
        let good = try Arguments(["--count", "7", "--size", "1280x720", "--duration", "1.5m"], accepting: table)
        #expect(try good.integer("count", default: 1, in: 1...10) == 7)
        #expect(try good.size("size")! == (1280, 720))
        #expect(try good.duration("duration")?.seconds == 90)
        let bad = try Arguments(["--count", "70", "--size", "big", "--duration", "0.1ms"], accepting: table)
        #expect(throws: UsageError.self) { try bad.integer("count", default: 1, in: 1...10) }
        #expect(throws: UsageError.self) { try bad.size("size") }
        #expect(throws: UsageError.self) { try bad.duration("duration") }
    }

    @Test func helpLinesListEveryOptionAligned() {
        #expect(CommandOption.helpText(for: Self.options) == """
              --device ID       camera unique ID or name
              --set NAME=VALUE  change a control first (repeatable);
                                VALUE is a number
              --json            print JSON
            """)
    }
}
