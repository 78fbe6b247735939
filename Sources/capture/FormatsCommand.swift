import CaptureKit
import CommandLineSupport

/// `capture formats DEVICE`: what one device can capture.
enum FormatsCommand: Command {
    static let name = "formats"
    static let summary = "list the formats of one device"
    /// What the command accepts; also the option lines of ``usage``.
    static let options: [CommandOption] = [
        .flag("json", "print the device and its formats as JSON"),
    ]

    static let usage = """
        usage: capture formats DEVICE [--json]

        Lists the formats of DEVICE (a unique ID or name from 'capture devices', or file:PATH): frame size,
        pixel format and frame rates for cameras, sample rate, channels and sample format for
        microphones. The active format is marked with '*'.

        \(CommandOption.helpText(for: options))
        """

    static func run(_ words: [String]) throws -> ExitStatus {
        let arguments = try Arguments(words, accepting: options)
        guard arguments.positional.count == 1 else { throw UsageError("give exactly one DEVICE") }
        let name = arguments.positional[0]
        let isMicrophone = CaptureDevice.allDevices.contains { $0.hasMediaType(.audio) && ($0.uniqueID == name || $0.localizedName.lowercased() == name.lowercased()) }
        let device = try DeviceLookup.find(name, mediaType: isMicrophone ? .audio : .video)
        if arguments.has("json") {
            try Console.printJSON(DeviceReport(device))
            return .success
        }
        Console.print("\(device.localizedName) [\(device.uniqueID)]")
        let active = device.activeFormat
        for format in device.formats {
            Console.print("\(format == active ? "*" : " ") \(format)")
        }
        return .success
    }
}
