import CaptureKit
import Foundation

/// Writes 4:2:0 frames as a YUV4MPEG2 stream (what ffmpeg, ffplay and x264 read).
final class Y4MWriter {
    private let handle: FileHandle
    private let path: String
    private var wroteHeader = false

    init(path: String) throws(CaptureError) {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw CaptureError(.fileError, "cannot create \(path)", errno: errno, path: path)
        }
        self.handle = handle
        self.path = path
    }

    deinit { try? handle.close() }

    func write(_ frame: PixelBuffer) throws(CaptureError) {
        guard frame.pixelFormat == .yuv420p else {
            throw CaptureError(.unsupportedFormat, "Y4M output takes yuv420p frames, not \(frame.pixelFormat)", path: path)
        }
        var data = Data()
        if !wroteHeader {
            data.append(contentsOf: "YUV4MPEG2 W\(frame.width) H\(frame.height) F30:1 Ip A1:1 C420jpeg\n".utf8)
            wroteHeader = true
        }
        data.append(contentsOf: "FRAME\n".utf8)
        data.append(contentsOf: frame.packedBytes())
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw CaptureError(.fileError, "cannot write \(path): \(error.localizedDescription)", path: path)
        }
    }
}
