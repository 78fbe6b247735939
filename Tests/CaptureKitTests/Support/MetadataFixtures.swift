import Foundation
import Synchronization
import Testing
@testable import CaptureKit

// Codes for the metadata output's suites, encoded by tools nobody here wrote — `qrencode` for QR
// (its module map), GNU `barcode` for the barcodes (its bar and space widths), `zint` for Data
// Matrix and PDF417 (its module dump) — drawn with whole
// pixels per module, and read back by `zbarimg` for the exact text each must decode to. Frames
// are made by pasting a code's pixels at a known place, so where the code was drawn is known to
// the pixel.

/// One generated code: its pixels (8-bit grey), where its dark part is, and what it says.
struct CodeImage: Sendable {
    var type: MetadataObject.ObjectType
    var width: Int
    var height: Int
    var luma: [UInt8]
    /// The smallest box around the dark pixels, in the image's pixels (right/bottom exclusive).
    var inkMinX: Int, inkMinY: Int, inkMaxX: Int, inkMaxY: Int
    /// What `zbarimg --raw` reads from the image (the encoded text for types zbarimg cannot read).
    var expected: String
}

enum MetadataFixtures {
    /// How each supported type is drawn: the tool's encoding name and the payload.
    static let payloads: [MetadataObject.ObjectType: (encoding: String, payload: String)] = [
        .qr: ("qr", "CaptureKit QR ✓ 42"),
        .ean13: ("ean13", "590123412345"),
        .ean8: ("ean8", "9638507"),
        .upca: ("upc-a", "03600029145"),
        .upce: ("upc-e", "0425261"),
        .code39: ("code39", "CK-39"),
        .code93: ("code93", "Ck93"),
        .code128: ("code128", "Ck-128"),
        .interleaved2of5: ("i25", "12345670"),
        .codabar: ("codabar", "A4015B"),
        // zint's symbology numbers.
        .dataMatrix: ("71", "CaptureKit DM ✓ 42"),
        .pdf417: ("55", "CaptureKit PDF417 ✓"),
    ]

    private static let made = Mutex<[String: CodeImage]>([:])

    /// The code for `type` (made once per test process).
    static func code(_ type: MetadataObject.ObjectType, payload: String? = nil) throws -> CodeImage {
        let spec = try #require(payloads[type], "no drawing recipe for \(type)")
        let text = payload ?? spec.payload
        let key = "\(type.rawValue)-\(text)"
        if let done = made.withLock({ $0[key] }) { return done }
        let base = FileFixtures.directory.appendingPathComponent("code-\(type.rawValue)-\(abs(text.hashValue))").path
        let width: Int, height: Int, luma: [UInt8]
        if type == .qr {
            // qrencode prints a dark module as "##" and a light one as two spaces.
            let art = String(decoding: try FileFixtures.run("qrencode", ["-t", "ASCII", "-m", "4", "-o", "-", text]), as: UTF8.self)
            let modules = art.split(separator: "\n").map { line in stride(from: 0, to: line.count, by: 2).map { line[line.index(line.startIndex, offsetBy: $0)] == "#" } }
            (width, height, luma) = matrix(modules, module: 4, rowHeight: 1)
        } else if type == .dataMatrix || type == .pdf417 {
            // zint dumps each symbol row as hex nibbles (1 = dark module); PDF417 rows are drawn
            // three modules high, as printers do.
            let dump = String(decoding: try FileFixtures.run("zint", ["-b", spec.encoding, "--dump", "-d", text]), as: UTF8.self)
            let rows = dump.split(separator: "\n").map { line in
                line.split(separator: " ").flatMap { word in word.flatMap { nibble in
                    (0..<4).map { bit in (Int(String(nibble), radix: 16) ?? 0) & (8 >> bit) != 0 }
                } }
            }.filter { !$0.isEmpty }
            // Nibbles pad each row; the symbol ends at the last dark module of any row.
            let columns = rows.map { ($0.lastIndex(of: true) ?? -1) + 1 }.max() ?? 0
            let padded = rows.map { [false, false, false, false] + $0.prefix(columns) + [false, false, false, false] }
            let blank = [[Bool]](repeating: [Bool](repeating: false, count: columns + 8), count: 4 / (type == .pdf417 ? 3 : 1) + 1)
            (width, height, luma) = matrix(blank + padded + blank, module: type == .pdf417 ? 2 : 4, rowHeight: type == .pdf417 ? 3 : 1)
        } else {
            // GNU barcode encodes; its SVG states the bar and space widths in modules, which
            // are drawn here with whole pixels per module (an SVG rasteriser would blur bars of
            // 0.85 pt into widths no decoder reads both ways).
            let svg = String(decoding: try FileFixtures.run("barcode", ["-S", "-n", "-e", spec.encoding, "-b", text]), as: UTF8.self)
            let marker = "(space first): "
            let start = try #require(svg.range(of: marker), "no bar widths in GNU barcode's SVG for \(type)").upperBound
            let widths = svg[start...].prefix { $0.isLetter || $0.isNumber }.map { character -> Int in
                // Digits are widths; letters are guard bars drawn longer, width = letter - 'a' + 1.
                character.wholeNumberValue ?? Int(character.asciiValue! - UInt8(ascii: "a")) + 1
            }
            (width, height, luma) = bars(widths, module: 2, barHeight: 100, quietModules: 10)
        }
        var pgm = Data("P5\n\(width) \(height)\n255\n".utf8)
        pgm.append(contentsOf: luma)
        try pgm.write(to: URL(fileURLWithPath: base + ".pgm"))
        let ink = try #require(inkBox(luma, width: width, height: height), "\(type) image has no dark pixels")
        let expected: String
        if type == .dataMatrix || type == .pdf417 {
            // zbarimg cannot read these: the text zint encoded is the oracle.
            expected = text
        } else {
            // zbarimg reads the drawing as this one type (ZBar decodes UPC-A inside its EAN-13
            // decoder), check digits and all.
            let symbology = zbarName[type] ?? type.rawValue
            let enable = ["-Sdisable", "-S\(symbology).enable"] + (type == .upca ? ["-Sean13.enable"] : [])
            let read = String(decoding: try FileFixtures.run("zbarimg", ["--raw", "-q"] + enable + [base + ".pgm"]), as: UTF8.self)
            expected = read.hasSuffix("\n") ? String(read.dropLast()) : read
        }
        let image = CodeImage(type: type, width: width, height: height, luma: luma, inkMinX: ink.0, inkMinY: ink.1,
                              inkMaxX: ink.2, inkMaxY: ink.3, expected: expected)
        made.withLock { $0[key] = image }
        return image
    }

    /// zbarimg's names where they differ from CaptureKit's.
    static let zbarName: [MetadataObject.ObjectType: String] = [.qr: "qrcode", .interleaved2of5: "i25"]

    /// A 2-D code from its rows of modules (true = dark), `module` pixels wide and
    /// `module × rowHeight` pixels high each.
    static func matrix(_ modules: [[Bool]], module: Int, rowHeight: Int) -> (Int, Int, [UInt8]) {
        let width = (modules.map(\.count).max() ?? 0) * module, rowPixels = module * rowHeight
        let height = modules.count * rowPixels
        var luma = [UInt8](repeating: 255, count: width * height)
        for (row, line) in modules.enumerated() {
            for (column, dark) in line.enumerated() where dark {
                for y in row * rowPixels ..< (row + 1) * rowPixels {
                    luma.replaceSubrange(y * width + column * module ..< y * width + (column + 1) * module, with: repeatElement(0, count: module))
                }
            }
        }
        return (width, height, luma)
    }

    /// A barcode from its alternating space and bar widths (space first), in modules.
    static func bars(_ widths: [Int], module: Int, barHeight: Int, quietModules: Int) -> (Int, Int, [UInt8]) {
        var row = [UInt8](repeating: 255, count: quietModules * module)
        for (index, width) in widths.enumerated() {
            row += [UInt8](repeating: index % 2 == 0 ? 255 : 0, count: width * module)
        }
        row += [UInt8](repeating: 255, count: quietModules * module)
        let margin = quietModules * module
        let blank = [UInt8](repeating: 255, count: row.count * margin)
        return (row.count, barHeight + 2 * margin, blank + Array([[UInt8]](repeating: row, count: barHeight).joined()) + blank)
    }

    static func inkBox(_ luma: [UInt8], width: Int, height: Int) -> (Int, Int, Int, Int)? {
        var minX = width, minY = height, maxX = -1, maxY = -1
        for y in 0..<height {
            for x in 0..<width where luma[y * width + x] < 128 {
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            }
        }
        return maxX < 0 ? nil : (minX, minY, maxX + 1, maxY + 1)
    }
}

/// A grey picture with codes pasted at known places; becomes camera frames or a video file.
struct CodeFrame {
    /// Where a code's dark part landed, in frame pixels (right/bottom exclusive).
    struct Placement {
        var code: CodeImage
        var minX: Int, minY: Int, maxX: Int, maxY: Int
    }

    let width: Int
    let height: Int
    private(set) var luma: [UInt8]
    private(set) var placements: [Placement] = []

    /// A blank (light grey, as paper under room light) frame.
    init(width: Int = 640, height: Int = 480) {
        self.width = width
        self.height = height
        luma = [UInt8](repeating: 220, count: width * height)
    }

    /// Pastes `code` with its top-left at (x, y).
    mutating func paste(_ code: CodeImage, x: Int, y: Int) throws {
        try #require(x >= 0 && y >= 0 && x + code.width <= width && y + code.height <= height,
                     "a \(code.width)x\(code.height) code at (\(x), \(y)) does not fit a \(width)x\(height) frame")
        for row in 0..<code.height {
            let source = row * code.width
            luma.replaceSubrange((y + row) * width + x ..< (y + row) * width + x + code.width, with: code.luma[source ..< source + code.width])
        }
        placements.append(Placement(code: code, minX: x + code.inkMinX, minY: y + code.inkMinY, maxX: x + code.inkMaxX, maxY: y + code.inkMaxY))
    }

    /// The picture as a camera frame: `.nv12` and `.yuv420p` carry it as their luma plane with
    /// neutral chroma, `.yuyv422` interleaved (so the output has to convert).
    func pixelBuffer(_ format: PixelFormat = .nv12) throws -> PixelBuffer {
        let buffer = try PixelBuffer(width: width, height: height, pixelFormat: format)
        switch format {
        case .yuyv422:
            buffer.withUnsafeMutableBytes(ofPlane: 0) { plane in
                let stride = buffer.bytesPerRow(ofPlane: 0)
                for y in 0..<height {
                    for x in 0..<width {
                        plane[y * stride + 2 * x] = luma[y * width + x]
                        plane[y * stride + 2 * x + 1] = 128
                    }
                }
            }
        default:
            buffer.withUnsafeMutableBytes(ofPlane: 0) { plane in
                let stride = buffer.bytesPerRow(ofPlane: 0)
                for y in 0..<height {
                    luma.withUnsafeBytes { source in
                        plane.baseAddress!.advanced(by: y * stride).copyMemory(from: source.baseAddress!.advanced(by: y * width), byteCount: width)
                    }
                }
            }
            for index in 1..<buffer.planeCount {
                buffer.withUnsafeMutableBytes(ofPlane: index) { _ = $0.initializeMemory(as: UInt8.self, repeating: 128) }
            }
        }
        return buffer
    }

    /// Writes the picture as an 8-bit grey PGM.
    func writePGM(_ path: String) throws {
        var data = Data("P5\n\(width) \(height)\n255\n".utf8)
        data.append(contentsOf: luma)
        try data.write(to: URL(fileURLWithPath: path))
    }
}

/// A metadata-objects delegate that records every batch.
/// With `delay` it is a slow consumer that sleeps inside its own callback (the behaviour under
/// test, not synchronisation).
final class MetadataRecorder: CaptureMetadataOutputObjectsDelegate {
    let batches = Recorder<[MachineReadableCodeObject]>()
    /// `CLOCK_MONOTONIC` nanoseconds when each batch arrived (recorded just before the batch).
    let arrivals = Recorder<Int64>()
    /// The output's scanned-frame count when each batch arrived (recorded just before it): the
    /// scans between two batches that found nothing are the difference less one, since the
    /// output scans the next frame only once its delegate has returned.
    let scans = Recorder<Int>()
    let queue = DispatchQueue(label: "tests.metadataRecorder")
    private let delay: Double?

    init(delay: Double? = nil) {
        self.delay = delay
    }

    func metadataOutput(_ output: CaptureMetadataOutput, didOutput metadataObjects: [MetadataObject], from connection: CaptureConnection) {
        arrivals.append(MonotonicClock.nanoseconds())
        scans.append(output.statistics.scannedFrames)
        batches.append(metadataObjects.compactMap { $0 as? MachineReadableCodeObject })
        if let delay { Thread.sleep(forTimeInterval: delay) }
    }

    /// All codes seen, in order.
    var codes: [MachineReadableCodeObject] { batches.items.flatMap { $0 } }
}

/// A session feeding one camera to a metadata output (recorded by a ``MetadataRecorder``) and a
/// video data output (recorded by a ``SampleRecorder``, the clock of what the camera sent).
struct ScanRig {
    let session: CaptureSession
    let output: CaptureMetadataOutput
    let recorder: MetadataRecorder
    let video: SampleRecorder

    /// A committed, not yet running session looking for `types`, set up further by `configure`.
    init(camera: CaptureDevice, types: [MetadataObject.ObjectType], delay: Double? = nil,
         configure: (CaptureMetadataOutput) throws -> Void = { _ in }) throws {
        output = CaptureMetadataOutput()
        let frames = CaptureVideoDataOutput()
        video = SampleRecorder()
        video.attach(to: frames)
        session = try makeSession(camera: camera, outputs: [output, frames])
        try output.setMetadataObjectTypes(types)
        try configure(output)
        recorder = MetadataRecorder(delay: delay)
        output.setMetadataObjectsDelegate(recorder, queue: recorder.queue)
    }
}

/// A virtual camera showing `frames` in a loop at 30 fps (`pacing`: in real time, or as fast
/// as its outputs take them).
func makeCodeCamera(_ label: String, frames: [PixelBuffer], pacing: VirtualCameraConfiguration.Pacing = .realTime) throws -> CaptureDevice {
    try makeTestCamera(label) { configuration in
        configuration.content = .frames(frames)
        configuration.frameRates = [30]
        configuration.pacing = pacing
    }
}

/// `blank` empty NV12 frames, then `shown` frames with a QR code at (200, 120): a loop in which
/// the code comes into view and goes.
func qrCodeLoop(blank: Int, shown: Int) throws -> [PixelBuffer] {
    var picture = CodeFrame()
    try picture.paste(try MetadataFixtures.code(.qr), x: 200, y: 120)
    return Array(repeating: try CodeFrame().pixelBuffer(.nv12), count: blank) + Array(repeating: try picture.pixelBuffer(.nv12), count: shown)
}
