import CaptureKit
import CommandLineSupport
import Dispatch
import Foundation

/// `capture scan`: prints barcodes, QR codes, Data Matrix and PDF417 symbols as they come into view.
enum ScanCommand: Command {
    static let name = "scan"
    static let summary = "print barcodes, QR codes, Data Matrix and PDF417 as they come into view"
    /// What the command accepts; also the option lines of ``usage``.
    static let options: [CommandOption] = [
        .value("device", "ID", "camera unique ID or name (see 'capture devices'), or file:PATH"),
        .value("types", "LIST", "comma-separated types to look for (default: all):\n\(CaptureMetadataOutput().availableMetadataObjectTypes.map(\.rawValue).joined(separator: ","))"),
        .flag("once", "stop after the first code"),
        .value("duration", "S", "stop after this long (10s, 500ms, 2m)"),
        .flag("json", "one JSON object per code and line: id, type, text, bounds, corners, time"),
    ]

    static var usage: String {
        """
        usage: capture scan [--device ID] [--types T,T,...] [--once] [--json] [--duration S]

        Scans the default camera, or DEVICE, with a CaptureMetadataOutput and prints each code
        once, when it comes into view (a code that stays in view is printed once; one that
        leaves and comes back is printed again). Runs until Ctrl-C, --once or --duration.

        \(CommandOption.helpText(for: options))

        Exit status: 0 when at least one code was found, 1 when none was.
        """
    }

    /// One code as printed with --json.
    struct Report: Encodable {
        var id: Int
        var type: String
        var text: String?
        var bytes: Int
        /// x, y, width, height in the picture's normalized coordinates.
        var bounds: [Double]
        /// [x, y] of the code's top-left, top-right, bottom-right, bottom-left.
        var corners: [[Double]]
        var time: Double
    }

    static func run(_ words: [String]) throws -> ExitStatus {
        let arguments = try Arguments(words, accepting: options)
        guard arguments.positional.isEmpty else { throw UsageError("unexpected argument '\(arguments.positional[0])'") }
        let output = CaptureMetadataOutput()
        let types = try parseTypes(arguments.value("types"), available: output.availableMetadataObjectTypes)
        let duration = try arguments.duration("duration")
        let device = try DeviceLookup.find(arguments.value("device"), mediaType: .video)

        let session = CaptureSession()
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: device))
        try session.addOutput(output)
        try session.commitConfiguration()
        try output.setMetadataObjectTypes(types)

        let printer = CodePrinter(json: arguments.has("json"), once: arguments.has("once"))
        output.setMetadataObjectsDelegate(printer, queue: DispatchQueue(label: "capture.scan"))
        let signals = SignalWatcher(signals: [SIGINT, SIGTERM]) { printer.finish() }
        defer { signals.cancel() }
        try session.startRunning()
        if let duration {
            _ = printer.done.wait(timeout: .now() + .nanoseconds(Int(duration.convertScale(1_000_000_000).value)))
        } else {
            printer.done.wait()
        }
        try session.stopRunning()
        output.setMetadataObjectsDelegate(nil, queue: nil)
        if let error = printer.failure { throw error }
        return printer.printedCount > 0 ? .success : .failure
    }

    /// The types named in `list` (all available ones when nil).
    static func parseTypes(_ list: String?, available: [MetadataObject.ObjectType]) throws(UsageError) -> [MetadataObject.ObjectType] {
        guard let list else { return available }
        let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard !names.isEmpty else { throw UsageError("--types needs at least one type") }
        return try names.map { name throws(UsageError) -> MetadataObject.ObjectType in
            let type = MetadataObject.ObjectType(rawValue: name)
            guard available.contains(type) else {
                throw UsageError("unknown or unsupported type '\(name)' (available: \(available.map(\.rawValue).joined(separator: ",")))")
            }
            return type
        }
    }
}
