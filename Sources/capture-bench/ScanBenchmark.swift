import CaptureKit
import Foundation
import Synchronization

/// `scan`: how many frames per second the metadata output searches for codes, at 720p and
/// 1080p, over the whole frame and over a centred rect of interest of 25 % of the picture, side
/// by side with `zbarimg` (the same ZBar library behind a command line) on the same frames.
///
/// The frame is NV12 (scanned in place) with a QR code in the centre, inside the rect of
/// interest, and an EAN-13 near a corner, outside it. CaptureKit's figure is end to end: a
/// 1000 fps real-time virtual camera looping the frame into a session, scans counted by the
/// output's statistics; the output always takes the newest frame, so scans per second is how
/// fast it can go. zbarimg reads the frame (cropped to the rect for the rect rows) as a PGM
/// given many times on one command line.
struct ScanBenchmark: Benchmark {
    let name = "scan"
    let summary = "metadata output scans/s at 720p and 1080p, full frame vs 25 % rect of interest, vs zbarimg on the same frames"

    static let sizes = [(1280, 720), (1920, 1080)]
    static let rect = CGRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)
    static let seconds = 2.0
    static let zbarimgCopies = 40

    func run(_ settings: BenchSettings) throws -> BenchmarkReport {
        let scratch = settings.scratchDirectory
        var rows: [Measurement] = []
        var notes: [String] = []
        let qr = try Self.qrModules("CaptureKit scan benchmark")
        let ean = try Self.barWidths(encoding: "ean13", text: "590123412345")
        for (width, height) in Self.sizes {
            var luma = [UInt8](repeating: 200, count: width * height)
            let module = height / 120
            Self.drawQR(qr, module: module, into: &luma, width: width, centerX: width / 2, centerY: height / 2)
            Self.drawBars(ean, module: module / 2 + 1, barHeight: height / 6, into: &luma, width: width, x: width / 20, y: height / 20)
            let frame = try Self.nv12(luma, width: width, height: height)

            // ZBar's types: the same job as zbarimg's.
            let zbarTypes = CaptureMetadataOutput().availableMetadataObjectTypes.filter { $0 != .dataMatrix && $0 != .pdf417 }
            for (label, rect) in [("full frame", nil), ("25 % rect", Self.rect)] as [(String, CGRect?)] {
                let result = try Self.measureCaptureKit(frame, rect: rect, types: zbarTypes)
                rows.append(Measurement(label: "CaptureKit \(width)x\(height) \(label)", tool: "CaptureKit", frames: result.scans,
                                        delivered: result.framesWithCodes, dropped: nil, unaccounted: nil,
                                        wallSeconds: result.wallSeconds, cpuSeconds: result.cpuSeconds,
                                        peakRSSBytes: nil, peakRSSScope: "process", cpuRatio: nil))
                notes.append("CaptureKit \(width)x\(height) \(label): found \(result.found.sorted().joined(separator: ", "))")
                let pgm = "\(scratch)/scan_\(width)x\(height)_\(rect == nil ? "full" : "rect").pgm"
                try Self.writePGM(luma, width: width, height: height, crop: rect, to: pgm)
                let peer = PeerCommand(label: "zbarimg \(width)x\(height) \(label)", command: "zbarimg",
                                       arguments: ["-q", "--raw"] + Array(repeating: pgm, count: Self.zbarimgCopies),
                                       frames: Self.zbarimgCopies, package: "zbar-tools")
                if let row = try peer.measure(runs: 3, scratchDirectory: scratch) {
                    rows.append(row)
                    if let one = try PeerCommand(label: "", command: "zbarimg", arguments: ["-q", "--raw", pgm], frames: 1, package: "zbar-tools")
                        .measure(runs: 3, scratchDirectory: scratch) {
                        let perScan = (row.wallSeconds - one.wallSeconds) / Double(Self.zbarimgCopies - 1)
                        notes.append(String(format: "zbarimg %dx%d %@: %.0f scans/s counting each image's load and the start-up, "
                                            + "%.0f scans/s without start-up (marginal, %d images vs 1)",
                                            width, height, label, row.framesPerSecond, perScan > 0 ? 1 / perScan : 0, Self.zbarimgCopies))
                    }
                } else {
                    notes.append("zbarimg is not installed (apt-get install zbar-tools): no zbarimg rows")
                }
            }
            // What asking for Data Matrix and PDF417 too adds (zxing-cpp runs after ZBar).
            let all = try Self.measureCaptureKit(frame, rect: nil, types: CaptureMetadataOutput().availableMetadataObjectTypes)
            rows.append(Measurement(label: "CaptureKit \(width)x\(height) full frame, + Data Matrix, PDF417", tool: "CaptureKit",
                                    frames: all.scans, delivered: all.framesWithCodes, dropped: nil, unaccounted: nil,
                                    wallSeconds: all.wallSeconds, cpuSeconds: all.cpuSeconds, peakRSSBytes: nil, peakRSSScope: "process", cpuRatio: nil))
        }
        notes.append("frames = scans; delivered = scans that found at least one code; CaptureKit's CPU covers the whole process "
                     + "(the 1000 fps camera thread too); zbarimg's covers reading each PGM through ImageMagick")
        notes.append("types: ZBar's (qr, EAN/UPC, code39/93/128, itf, codabar) for CaptureKit and zbarimg's defaults; the \"+ Data Matrix, PDF417\" rows "
                     + "also run zxing-cpp over the frame")
        return BenchmarkReport(name: name, summary: summary, rows: rows, notes: notes)
    }

    struct Result {
        var scans: Int
        var framesWithCodes: Int
        var wallSeconds: Double
        var cpuSeconds: Double
        var found: Set<String>
    }

    /// Finds what the output sees in a looping `frame` for ``seconds``.
    static func measureCaptureKit(_ frame: PixelBuffer, rect: CGRect?, types: [MetadataObject.ObjectType]) throws -> Result {
        var configuration = VirtualCameraConfiguration(name: "Scan Bench \(frame.width)x\(frame.height) \(MediaTime.now.value)")
        configuration.content = .frames([frame])
        configuration.frameRates = [1000]
        let camera = try CaptureDevice.makeVirtualCamera(configuration)
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let session = CaptureSession()
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: camera))
        let output = CaptureMetadataOutput()
        try session.addOutput(output)
        try session.commitConfiguration()
        try output.setMetadataObjectTypes(types)
        if let rect { try output.setRectOfInterest(rect) }
        let found = FoundTexts()
        output.setMetadataObjectsDelegate(found, queue: DispatchQueue(label: "bench.scan"))
        try session.startRunning()
        // Warm-up: the first scans allocate ZBar's tables.
        Thread.sleep(forTimeInterval: 0.3)
        let before = ResourceSnapshot.now()
        let start = output.statistics
        Thread.sleep(forTimeInterval: seconds)
        let end = output.statistics
        let after = ResourceSnapshot.now()
        try session.stopRunning()
        output.setMetadataObjectsDelegate(nil, queue: nil)
        guard end.scannedFrames > start.scannedFrames else { throw BenchError("the metadata output scanned nothing in \(seconds) s") }
        return Result(scans: end.scannedFrames - start.scannedFrames, framesWithCodes: end.framesWithObjects - start.framesWithObjects,
                      wallSeconds: after.wallSeconds(since: before), cpuSeconds: after.cpuSeconds(since: before), found: found.texts)
    }

    /// Records the distinct codes found.
    final class FoundTexts: CaptureMetadataOutputObjectsDelegate {
        private let seen = Mutex(Set<String>())
        var texts: Set<String> { seen.withLock { $0 } }
        func metadataOutput(_ output: CaptureMetadataOutput, didOutput metadataObjects: [MetadataObject], from connection: CaptureConnection) {
            seen.withLock { seen in
                for case let code as MachineReadableCodeObject in metadataObjects { seen.insert("\(code.type) \(code.stringValue ?? "")") }
            }
        }
    }

    // MARK: Drawing the frame

    /// The QR code's modules (true = dark) from `qrencode -t ASCII`, which prints two `#` per dark module.
    static func qrModules(_ text: String) throws -> [[Bool]] {
        let lines = try runTool("qrencode", ["-t", "ASCII", "-m", "4", "-o", "-", text]).split(separator: "\n")
        return lines.map { line in stride(from: 0, to: line.count, by: 2).map { line[line.index(line.startIndex, offsetBy: $0)] == "#" } }
    }

    /// Space/bar widths (space first) in modules, from GNU barcode's SVG.
    static func barWidths(encoding: String, text: String) throws -> [Int] {
        let svg = try runTool("barcode", ["-S", "-n", "-e", encoding, "-b", text])
        guard let marker = svg.range(of: "(space first): ") else { throw BenchError("GNU barcode gave no bar widths") }
        return svg[marker.upperBound...].prefix { $0.isLetter || $0.isNumber }.map {
            $0.wholeNumberValue ?? Int($0.asciiValue! - UInt8(ascii: "a")) + 1
        }
    }

    static func runTool(_ tool: String, _ arguments: [String]) throws -> String {
        guard let path = ChildProcess.locate(tool) else { throw BenchError("\(tool) is not installed (scripts/install-deps.sh installs it)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("\(tool) failed with status \(process.terminationStatus)") }
        return String(decoding: data, as: UTF8.self)
    }

    static func drawQR(_ modules: [[Bool]], module: Int, into luma: inout [UInt8], width: Int, centerX: Int, centerY: Int) {
        let size = modules.count * module
        for (row, line) in modules.enumerated() {
            for (column, dark) in line.enumerated() {
                fill(&luma, width: width, x: centerX - size / 2 + column * module, y: centerY - size / 2 + row * module,
                     w: module, h: module, value: dark ? 0 : 255)
            }
        }
    }

    static func drawBars(_ widths: [Int], module: Int, barHeight: Int, into luma: inout [UInt8], width: Int, x: Int, y: Int) {
        let total = widths.reduce(0, +) + 20
        fill(&luma, width: width, x: x, y: y, w: total * module, h: barHeight + 20 * module, value: 255)
        var position = x + 10 * module
        for (index, bar) in widths.enumerated() {
            if index % 2 == 1 { fill(&luma, width: width, x: position, y: y + 10 * module, w: bar * module, h: barHeight, value: 0) }
            position += bar * module
        }
    }

    static func fill(_ luma: inout [UInt8], width: Int, x: Int, y: Int, w: Int, h: Int, value: UInt8) {
        for row in y..<(y + h) { luma.replaceSubrange(row * width + x ..< row * width + x + w, with: repeatElement(value, count: w)) }
    }

    static func nv12(_ luma: [UInt8], width: Int, height: Int) throws -> PixelBuffer {
        let buffer = try PixelBuffer(width: width, height: height, pixelFormat: .nv12)
        buffer.withUnsafeMutableBytes(ofPlane: 0) { plane in
            let stride = buffer.bytesPerRow(ofPlane: 0)
            for row in 0..<height {
                luma.withUnsafeBytes { plane.baseAddress!.advanced(by: row * stride).copyMemory(from: $0.baseAddress!.advanced(by: row * width), byteCount: width) }
            }
        }
        buffer.withUnsafeMutableBytes(ofPlane: 1) { _ = $0.initializeMemory(as: UInt8.self, repeating: 128) }
        return buffer
    }

    /// The frame (or the part of it inside `crop`, normalized) as an 8-bit PGM.
    static func writePGM(_ luma: [UInt8], width: Int, height: Int, crop: CGRect?, to path: String) throws {
        let x0 = Int((crop?.minX ?? 0) * Double(width)), y0 = Int((crop?.minY ?? 0) * Double(height))
        let w = Int((crop?.width ?? 1) * Double(width)), h = Int((crop?.height ?? 1) * Double(height))
        var data = Data("P5\n\(w) \(h)\n255\n".utf8)
        for row in y0..<(y0 + h) { data.append(contentsOf: luma[row * width + x0 ..< row * width + x0 + w]) }
        guard FileManager.default.createFile(atPath: path, contents: data) else { throw BenchError("cannot write \(path)") }
    }
}
