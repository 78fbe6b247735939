import CaptureKit
import CommandLineSupport

/// `capture controls DEVICE [--set name=value]…`: a camera's controls, and changing them.
enum ControlsCommand: Command {
    static let name = "controls"
    static let summary = "list or change the controls of a camera"
    /// What the command accepts; also the option lines of ``usage``.
    static let options: [CommandOption] = [
        .value("set", "NAME=VALUE", "change a control first (repeatable); VALUE is a number, true/false,\nor the name of a menu item (\"50 Hz\")"),
        .flag("json", "print the controls as JSON"),
    ]

    static let usage = """
        usage: capture controls DEVICE [--set NAME=VALUE]... [--json]

        Lists the controls of DEVICE (a unique ID or name from 'capture devices') with their kind,
        range or menu, default and current value. Names are spelled as v4l2-ctl spells them
        (brightness, white_balance_temperature, power_line_frequency).

        \(CommandOption.helpText(for: options))
        """

    struct Report: Encodable {
        var key: String
        var name: String
        var kind: String
        var minimum: Int64
        var maximum: Int64
        var step: Int64
        var defaultValue: Int64
        var value: Int64?
        var menu: [String: String]?
        var readOnly: Bool
        var inactive: Bool
    }

    static func run(_ words: [String]) throws -> ExitStatus {
        let arguments = try Arguments(words, accepting: options)
        let settings = try arguments.values("set").map { (assignment) throws(UsageError) -> (String, String) in
            guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
                throw UsageError("--set needs NAME=VALUE, not '\(assignment)'")
            }
            return (String(assignment[..<equals]), String(assignment[assignment.index(after: equals)...]))
        }
        guard arguments.positional.count == 1 else { throw UsageError("give exactly one DEVICE") }
        let device = try DeviceLookup.find(arguments.positional[0], mediaType: .video)
        if !settings.isEmpty {
            try device.lockForConfiguration()
            defer { device.unlockForConfiguration() }
            for (name, value) in settings {
                let failure: CaptureError?
                do {
                    try device.setControl(named: name, to: value)
                    failure = nil
                } catch {
                    failure = error
                }
                // A name the user typed that the camera lacks is a usage error. (Not `catch where`:
                // Swift 6.3's SIL ownership verifier crashes on that here.)
                if let failure { throw failure.code == .notSupported ? UsageError(failure.message) as any Error : failure }
            }
        }
        let reports = device.controls.map { control in
            Report(key: control.key, name: control.name, kind: control.kind.rawValue, minimum: control.minimum, maximum: control.maximum,
                   step: control.step, defaultValue: control.defaultValue,
                   value: control.kind == .button || control.kind == .string ? nil : try? device.value(of: control),
                   menu: control.menuItems.isEmpty ? nil : Dictionary(uniqueKeysWithValues: control.menuItems.map { (String($0.value), $0.name) }),
                   readOnly: control.isReadOnly, inactive: control.isInactive)
        }
        if arguments.has("json") {
            try Console.printJSON(reports)
            return .success
        }
        Console.print("\(device.localizedName) [\(device.uniqueID)]")
        if reports.isEmpty { Console.print("  (no controls)") }
        for (control, report) in zip(device.controls, reports) {
            Console.print("  \(control)\(report.value.map { " value=\($0)" } ?? "")")
        }
        return .success
    }
}
