import Dispatch
import Foundation
import Synchronization
import Testing
@testable import CaptureKit

// Helpers for the photo, EXIF and still-image suites: independent tools (ffmpeg, ffprobe,
// exiftool, heif-convert) run on the files CaptureKit wrote, the frame the virtual camera made
// for an index, PSNR, and a delegate that records every call.

/// A failure of an outside tool, with what it printed.
struct ToolError: Error, CustomStringConvertible {
    let description: String
}

/// A scratch folder for one test, removed when the value goes.
final class PhotoScratch: Sendable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "capturekit-photo-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `data` as `name` in the folder and returns its path.
    func write(_ data: Data, as name: String) throws -> String {
        let file = "\(path)/\(name)"
        try data.write(to: URL(fileURLWithPath: file))
        return file
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

enum PhotoTools {
    /// Runs `tool` (looked up on PATH) and returns its standard output; throws with its standard
    /// error when it fails. Output goes through files, so big outputs cannot fill a pipe.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], in scratch: PhotoScratch) throws -> Data {
        let id = UUID().uuidString
        let outPath = "\(scratch.path)/\(id).out", errPath = "\(scratch.path)/\(id).err"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try process.run()
        process.waitUntilExit()
        let output = try Data(contentsOf: URL(fileURLWithPath: outPath))
        guard process.terminationStatus == 0 else {
            let error = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            throw ToolError(description: "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(error)")
        }
        return output
    }

    static func isInstalled(_ tool: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
    }

    /// The picture in `file` decoded by FFmpeg (not by the library that wrote it) to packed
    /// limited-range yuv420p, and its size: the stored pixels, not turned by the EXIF
    /// orientation (`-noautorotate`).
    static func decodeYUV420(_ file: String, in scratch: PhotoScratch) throws -> (width: Int, height: Int, bytes: [UInt8]) {
        let (width, height, _) = try probe(file, in: scratch)
        let raw = "\(scratch.path)/\(UUID().uuidString).yuv"
        try run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-noautorotate", "-i", file,
                           "-f", "rawvideo", "-pix_fmt", "yuv420p", raw], in: scratch)
        return (width, height, [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw))))
    }

    /// Width, height and pixel format of the first video stream, by ffprobe.
    static func probe(_ file: String, in scratch: PhotoScratch) throws -> (width: Int, height: Int, pixelFormat: String) {
        let text = String(decoding: try run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                         "stream=width,height,pix_fmt", "-of", "default=noprint_wrappers=1", file], in: scratch),
                          as: UTF8.self)
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let width = fields["width"].flatMap(Int.init), let height = fields["height"].flatMap(Int.init) else {
            throw ToolError(description: "ffprobe found no picture in \(file): \(text)")
        }
        return (width, height, fields["pix_fmt"] ?? "?")
    }

    /// exiftool's reading of `file` (`exiftool -j -n`: numbers as numbers).
    static func exif(_ file: String, in scratch: PhotoScratch) throws -> [String: Any] {
        let json = try run("exiftool", ["-j", "-n", file], in: scratch)
        guard let list = try JSONSerialization.jsonObject(with: json) as? [[String: Any]], let first = list.first else {
            throw ToolError(description: "exiftool printed no object for \(file)")
        }
        return first
    }

    /// A HEIF file decoded by libheif's heif-convert (HEVC by libde265, not by x265 which wrote
    /// it) to PNG, then by FFmpeg to yuv420p.
    static func decodeHEIF(_ file: String, in scratch: PhotoScratch) throws -> (width: Int, height: Int, bytes: [UInt8]) {
        let png = "\(scratch.path)/\(UUID().uuidString).png"
        try run("heif-convert", [file, png], in: scratch)
        return try decodeYUV420(png, in: scratch)
    }
}

/// The frame the virtual camera produced for `index`, as packed yuv420p (converted by
/// libswscale), for comparing with a decoded photo.
func expectedFrame(width: Int, height: Int, pixelFormat: PixelFormat, index: UInt64,
                   frameDuration: MediaTime = MediaTime(value: 1, timescale: 30),
                   scaledTo size: (width: Int, height: Int)? = nil) throws -> [UInt8] {
    let frame = try TestPattern(width: width, height: height, pixelFormat: pixelFormat, frameDuration: frameDuration)
        .render(frameIndex: Int(index))
    let target = size ?? (width, height)
    return try PixelConverter.shared.convert(frame, to: .yuv420p, width: target.width, height: target.height).packedBytes()
}

/// Peak signal-to-noise ratio in dB of two equally long 8-bit sample arrays.
func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
    precondition(a.count == b.count && !a.isEmpty, "PSNR needs two non-empty arrays of one length (\(a.count) vs \(b.count))")
    var sum = 0.0
    for index in a.indices {
        let d = Double(Int(a[index]) - Int(b[index]))
        sum += d * d
    }
    let mse = sum / Double(a.count)
    return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
}

/// The luma plane of packed yuv420p.
func lumaPlane(_ yuv420: [UInt8], width: Int, height: Int) -> [UInt8] { Array(yuv420.prefix(width * height)) }

/// One call a photo delegate received.
struct PhotoCall: Sendable, Equatable, CustomStringConvertible {
    enum Kind: String, Sendable { case willBegin, willCapture, didCapture, didFinishProcessing, didFinishCapture }
    var id: Int64
    var kind: Kind
    var error: CaptureError.Code?
    /// The error's message: it says why a request failed (two causes can share a code).
    var message: String?

    var description: String { "\(id).\(kind)\(error.map { "(\($0))" } ?? "")" }
}

/// A photo delegate recording every call in order, and the photos.
final class PhotoDelegateRecorder: CapturePhotoCaptureDelegate {
    let calls = Recorder<PhotoCall>()
    let photos = Recorder<CapturePhoto>()
    let queue = DispatchQueue(label: "tests.photoDelegate")

    func photoOutput(_ output: CapturePhotoOutput, willBeginCaptureFor resolvedSettings: CaptureResolvedPhotoSettings) {
        calls.append(PhotoCall(id: resolvedSettings.uniqueID, kind: .willBegin))
    }
    func photoOutput(_ output: CapturePhotoOutput, willCapturePhotoFor resolvedSettings: CaptureResolvedPhotoSettings) {
        calls.append(PhotoCall(id: resolvedSettings.uniqueID, kind: .willCapture))
    }
    func photoOutput(_ output: CapturePhotoOutput, didCapturePhotoFor resolvedSettings: CaptureResolvedPhotoSettings) {
        calls.append(PhotoCall(id: resolvedSettings.uniqueID, kind: .didCapture))
    }
    func photoOutput(_ output: CapturePhotoOutput, didFinishProcessingPhoto photo: CapturePhoto, error: (any Error)?) {
        let error = error as? CaptureError
        photos.append(photo)
        calls.append(PhotoCall(id: photo.resolvedSettings.uniqueID, kind: .didFinishProcessing, error: error?.code, message: error?.message))
    }
    func photoOutput(_ output: CapturePhotoOutput, didFinishCaptureFor resolvedSettings: CaptureResolvedPhotoSettings, error: (any Error)?) {
        let error = error as? CaptureError
        calls.append(PhotoCall(id: resolvedSettings.uniqueID, kind: .didFinishCapture, error: error?.code, message: error?.message))
    }

    /// The calls made for one request, in order.
    func calls(for id: Int64) -> [PhotoCall] { calls.items.filter { $0.id == id } }

    /// Waits until `count` requests have finished.
    func waitForFinished(_ count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await calls.wait(timeout: timeout) { $0.filter { $0.kind == .didFinishCapture }.count >= count }
    }
}

/// Whether `calls` is the full sequence for one request, ending with `error` (nil: success).
func isCompleteSequence(_ calls: [PhotoCall], error: CaptureError.Code?) -> Bool {
    calls.map(\.kind) == [.willBegin, .willCapture, .didCapture, .didFinishProcessing, .didFinishCapture]
        && calls[3].error == error && calls[4].error == error
}

/// A 640x480 virtual camera of its own in `pixelFormat`, with extra sizes when asked.
func makePhotoCamera(_ label: String, pixelFormat: PixelFormat = .nv12, sizes: [(Int, Int)] = [(640, 480)],
                     position: CaptureDevice.Position = .unspecified, frameRate: Int32 = 30) throws -> CaptureDevice {
    try makeTestCamera(label) { configuration in
        configuration.sizes = sizes.map { VirtualCameraConfiguration.Size(width: $0.0, height: $0.1) }
        configuration.pixelFormats = [pixelFormat]
        configuration.frameRates = [frameRate]
        configuration.position = position
    }
}

/// A Netpbm file (P5 grey or P6 colour, 8- or 16-bit) as dcraw and FFmpeg write it: width,
/// height, channels and the samples.
struct NetpbmImage {
    var width = 0, height = 0, channels = 0
    var samples: [Int] = []

    init(_ data: Data) throws {
        let bytes = [UInt8](data)
        var fields: [String] = [], index = 0, current = ""
        while fields.count < 4, index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") {
                if !current.isEmpty { fields.append(current); current = "" }
            } else {
                current.append(Character(UnicodeScalar(byte)))
            }
        }
        guard fields.count == 4, let w = Int(fields[1]), let h = Int(fields[2]), let maximum = Int(fields[3]) else {
            throw ToolError(description: "not a Netpbm header: \(fields)")
        }
        width = w
        height = h
        channels = fields[0] == "P6" ? 3 : 1
        let wide = maximum > 255
        let count = w * h * channels
        guard bytes.count - index >= count * (wide ? 2 : 1) else { throw ToolError(description: "a short Netpbm file") }
        samples = (0..<count).map { wide ? Int(bytes[index + 2 * $0]) << 8 | Int(bytes[index + 2 * $0 + 1]) : Int(bytes[index + $0]) }
    }

    func pixel(x: Int, y: Int) -> [Int] {
        let start = (y * width + x) * channels
        return Array(samples[start..<start + channels])
    }
}
