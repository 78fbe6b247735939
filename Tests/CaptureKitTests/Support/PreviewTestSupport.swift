import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitPreview

// Helpers for the preview suites: an Xvfb server of the test's own, screenshots taken by xwd
// and decoded by FFmpeg, and the picture a window should show, computed independently of SDL.

enum PreviewPrerequisites {
    /// Whether the run is CI's, where a missing tool must fail the test instead of skipping it.
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Whether every tool is on PATH.
    static func installed(_ tools: [String]) -> Bool { tools.allSatisfy(PhotoTools.isInstalled) }

    /// True when the tools are there, or in CI (where the test then fails on the missing tool).
    static func runnable(_ tools: [String]) -> Bool { isCI || installed(tools) }
}

/// An Xvfb server on a display number it picks itself (`-displayfd`), stopped when the value
/// goes. Reading the display number is the readiness event: Xvfb writes it once it accepts
/// connections.
final class VirtualDisplay: @unchecked Sendable {
    let name: String
    let width: Int
    let height: Int
    private let process = Process()

    init(width: Int = 640, height: Int = 480) throws {
        self.width = width
        self.height = height
        guard PhotoTools.isInstalled("Xvfb") else { throw ToolError(description: "Xvfb is not installed (apt-get install xvfb)") }
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["Xvfb", "-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp", "-noreset"]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.hasSuffix("\n") {
            let byte = pipe.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else {
                kill(process.processIdentifier, SIGKILL)
                throw ToolError(description: "Xvfb exited before naming its display")
            }
            text += String(decoding: byte, as: UTF8.self)
        }
        name = ":" + text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit {
        // SIGKILL: a child spawned from a dispatch thread inherits its blocked SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Freezes the X server (SIGSTOP): every client call that waits for it blocks.
    func freeze() { kill(process.processIdentifier, SIGSTOP) }

    /// Lets a frozen X server run again (SIGCONT).
    func thaw() { kill(process.processIdentifier, SIGCONT) }

    /// The window titled `title` as packed RGB24, captured by xwd and decoded by FFmpeg.
    func screenshot(windowTitled title: String, in scratch: PhotoScratch) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        let file = "\(scratch.path)/\(UUID().uuidString).xwd"
        try PhotoTools.run("xwd", ["-display", name, "-name", title, "-silent", "-out", file], in: scratch)
        let (width, height, _) = try PhotoTools.probe(file, in: scratch)
        let raw = "\(scratch.path)/\(UUID().uuidString).rgb"
        try PhotoTools.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-i", file,
                                      "-f", "rawvideo", "-pix_fmt", "rgb24", raw], in: scratch)
        return (width, height, [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw))))
    }
}

/// What a window of `viewWidth`x`viewHeight` should show for `frame`: the frame mirrored and
/// turned (by CaptureKit's photo kernels), scaled by libswscale to the picture rectangle the
/// gravity gives, on black. Packed RGB24.
func expectedWindow(_ frame: PixelBuffer, geometry: PreviewGeometry) throws -> [UInt8] {
    let turned = try FrameRotation.apply(VideoTransform(rotation: geometry.rotation, isMirrored: geometry.isMirrored),
                                         to: try PixelConverter.shared.convert(frame, to: .yuv420p, width: frame.width, height: frame.height))
    let rect = geometry.pictureRect
    let x = Int(rect.x.rounded()), y = Int(rect.y.rounded())
    let width = Int(rect.width.rounded()), height = Int(rect.height.rounded())
    let picture = try PixelConverter.shared.convert(turned, to: .rgb24, width: width, height: height)
    var canvas = [UInt8](repeating: 0, count: geometry.viewWidth * geometry.viewHeight * 3)
    picture.withUnsafeBytes(ofPlane: 0) { source in
        let stride = picture.bytesPerRow(ofPlane: 0)
        for row in max(0, y)..<min(geometry.viewHeight, y + height) {
            for column in max(0, x)..<min(geometry.viewWidth, x + width) {
                for channel in 0..<3 {
                    canvas[(row * geometry.viewWidth + column) * 3 + channel] = source[(row - y) * stride + (column - x) * 3 + channel]
                }
            }
        }
    }
    return canvas
}
