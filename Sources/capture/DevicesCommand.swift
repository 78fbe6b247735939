import CaptureKit
import CommandLineSupport

/// `capture devices`: every camera and microphone present.
enum DevicesCommand: Command {
    static let name = "devices"
    static let summary = "list cameras and microphones (virtual ones included)"
    /// What the command accepts; also the option lines of ``usage``.
    static let options: [CommandOption] = [
        .flag("json", "print the devices and all their formats as JSON"),
    ]

    static let usage = """
        usage: capture devices [--json]

        Lists every capture device: hardware first, then CaptureKit's virtual camera and
        microphone. The default device of each kind is marked with '*'.

        \(CommandOption.helpText(for: options))
        """

    static func run(_ words: [String]) throws -> ExitStatus {
        let arguments = try Arguments(words, accepting: options)
        guard arguments.positional.isEmpty else { throw UsageError("unexpected argument '\(arguments.positional[0])'") }
        try PortalAccess.requestIfNeeded()
        let devices = CaptureDevice.allDevices
        if arguments.has("json") {
            try Console.printJSON(devices.map(DeviceReport.init))
            return .success
        }
        let defaults = Set(MediaType.allCases.compactMap { CaptureDevice.default(for: $0)?.uniqueID })
        for device in devices {
            let mark = defaults.contains(device.uniqueID) ? "*" : " "
            let media = MediaType.allCases.first(where: device.hasMediaType)?.rawValue ?? "?"
            Console.print("\(mark) \(media)\t\(device.localizedName)\t\(device.uniqueID)\t\(device.deviceType.rawValue)\t\(device.formats.count) formats\(device.bus.map { "\ton \($0)" } ?? "")")
        }
        // Cameras that exist but could not be opened (permissions) say why instead of vanishing.
        for error in CaptureDevice.discoveryErrors { Console.error("not usable: \(error)") }
        return .success
    }
}
