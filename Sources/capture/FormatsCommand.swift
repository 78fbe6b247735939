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

        Lists the formats of DEVICE (a unique ID or name from 'capture devices', a node such as
        /dev/video0 or /dev/v4l/by-id/..., an ALSA name such as hw:1,0, or file:PATH): frame size,
        pixel format and frame rates for cameras, sample rate, channels and sample format for
        microphones. The active format is marked with '*'.

        \(CommandOption.helpText(for: options))
        """

    static func run(_ words: [String]) throws -> ExitStatus {
        let arguments = try Arguments(words, accepting: options)
        guard arguments.positional.count == 1 else { throw UsageError("give exactly one DEVICE") }
        let name = arguments.positional[0]
        // A camera or a microphone, whichever the name stands for; a file plays as a camera. On
        // the portal route a camera is only found once access is granted: asked when the name
        // is nothing else.
        let device: CaptureDevice
        if name.hasPrefix(DeviceLookup.filePrefix) {
            device = try DeviceLookup.find(name, mediaType: .video)
        } else if let found = try? CaptureDevice.device(resolving: name) {
            device = found
        } else {
            try PortalAccess.requestIfNeeded()
            device = try CaptureDevice.device(resolving: name)
        }
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
