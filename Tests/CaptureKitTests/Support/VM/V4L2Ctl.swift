import Foundation
import Testing

/// v4l2-ctl (from v4l-utils), the oracle the integration suites compare CaptureKit with and the
/// hand that pulls vivid's fault-injection levers from outside the process under test.
enum V4L2Ctl {
    /// `v4l2-ctl -D`: the driver's identification of a node.
    struct DriverInfo {
        var driver: String
        var card: String
        var busInfo: String
    }

    /// One line of `--list-formats-ext`, reduced to what CaptureKit's formats carry: a FourCC,
    /// a frame size and the frame rates it offers, in frames per second.
    struct FormatEntry: Hashable, CustomStringConvertible {
        var fourCC: String
        var width: Int
        var height: Int
        /// Rates rounded to millihertz, as v4l2-ctl prints them (`30.000 fps`).
        var frameRates: Set<Int>

        var description: String { "\(fourCC) \(width)x\(height) @\(frameRates.sorted().map { Double($0) / 1000 })" }
    }

    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        String(decoding: try FileFixtures.run("v4l2-ctl", arguments), as: UTF8.self)
    }

    static func driverInfo(_ node: String) throws -> DriverInfo {
        let text = try run(["-d", node, "-D"])
        func field(_ name: String) -> String {
            text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(name) }
                .flatMap { $0.split(separator: ":", maxSplits: 1).last }
                .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        }
        return DriverInfo(driver: field("Driver name"), card: field("Card type"), busInfo: field("Bus info"))
    }

    /// Parses `v4l2-ctl --list-formats-ext`: `[0]: 'YUYV' (…)`, `Size: Discrete 640x480`,
    /// `Interval: Discrete 0.033s (30.000 fps)`. Stepwise sizes or intervals are not produced by
    /// vivid's webcam input or v4l2loopback, so they make the parse fail loudly.
    static func formats(_ node: String) throws -> [FormatEntry] {
        var entries: [FormatEntry] = []
        var fourCC: String?
        for raw in try run(["-d", node, "--list-formats-ext"]).split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("["), let open = line.firstIndex(of: "'") {
                let rest = line[line.index(after: open)...]
                fourCC = rest.firstIndex(of: "'").map { String(rest[..<$0]) }
            } else if line.hasPrefix("Size: Discrete ") {
                let size = line.dropFirst("Size: Discrete ".count).split(separator: "x").compactMap { Int($0) }
                guard let fourCC, size.count == 2 else { throw ToolFailure(description: "unparsed size line: \(line)") }
                entries.append(FormatEntry(fourCC: fourCC, width: size[0], height: size[1], frameRates: []))
            } else if line.hasPrefix("Interval: Discrete ") {
                guard let open = line.lastIndex(of: "("), let fps = Double(line[line.index(after: open)...].split(separator: " ").first ?? ""),
                      !entries.isEmpty else { throw ToolFailure(description: "unparsed interval line: \(line)") }
                entries[entries.count - 1].frameRates.insert(Int((fps * 1000).rounded()))
            } else if line.hasPrefix("Size:") || line.hasPrefix("Interval:") {
                throw ToolFailure(description: "non-discrete entry the parser does not handle: \(line)")
            }
        }
        return entries
    }

    /// Sets controls with `-c name=value,…` (vivid's fault injection, test pattern, OSD).
    static func set(_ node: String, _ controls: [String: String]) throws {
        try run(["-d", node, "-c", controls.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ",")])
    }

    /// A control's current value as `-C name` prints it (`brightness: 128`,
    /// `test_pattern: 1 (100% Colorbar)`).
    static func value(_ node: String, _ control: String) throws -> Int64 {
        let text = try run(["-d", node, "-C", control])
        let fields = text.split(separator: ":", maxSplits: 1).last?.split(separator: " ") ?? []
        guard let value = fields.first.flatMap({ Int64($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
            throw ToolFailure(description: "unparsed control value: \(text)")
        }
        return value
    }

    /// One frame as the driver delivers it to v4l2-ctl's own mmap streaming loop, in `fourCC`
    /// at `width`x`height` (the reference a CaptureKit frame of the same format must equal).
    static func captureFrame(_ node: String, fourCC: String, width: Int, height: Int) throws -> [UInt8] {
        let url = FileFixtures.directory.appendingPathComponent("v4l2ctl-\(fourCC)-\(width)x\(height)-\(UUID().uuidString.prefix(6)).raw")
        defer { try? FileManager.default.removeItem(at: url) }
        // Skip the first frames: a driver may deliver one with the previous format's content.
        try run(["-d", node, "--set-fmt-video=width=\(width),height=\(height),pixelformat=\(fourCC)",
                 "--stream-mmap=3", "--stream-skip=2", "--stream-count=1", "--stream-to=\(url.path)"])
        return [UInt8](try Data(contentsOf: url))
    }
}
