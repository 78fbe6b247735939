import CaptureKit

/// Reads single pixels of a frame in one of the formats the suites capture, from either a
/// `PixelBuffer` or a tightly packed raw frame as v4l2-ctl writes it.
struct PixelSampler {
    let pixelFormat: PixelFormat
    let width: Int
    let height: Int
    /// Each plane's bytes and row stride.
    let planes: [(bytes: [UInt8], bytesPerRow: Int)]

    init(_ buffer: PixelBuffer) {
        pixelFormat = buffer.pixelFormat
        width = buffer.width
        height = buffer.height
        planes = (0..<buffer.planeCount).map { plane in
            (buffer.withUnsafeBytes(ofPlane: plane) { [UInt8]($0) }, buffer.bytesPerRow(ofPlane: plane))
        }
    }

    /// A raw frame with no row padding (`bytesperline` = the minimum, as vivid reports it).
    init(raw: [UInt8], pixelFormat: PixelFormat, width: Int, height: Int) {
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        var offset = 0
        var planes: [(bytes: [UInt8], bytesPerRow: Int)] = []
        for plane in 0..<pixelFormat.planeCount {
            let stride = pixelFormat.minimumBytesPerRow(plane: plane, width: width)
            let size = stride * pixelFormat.rowCount(plane: plane, height: height)
            planes.append((Array(raw[min(offset, raw.count)..<min(offset + size, raw.count)]), stride))
            offset += size
        }
        self.planes = planes
    }

    /// The stored components at (x, y): Y, U, V for YUV formats, R, G, B for RGB ones.
    func components(x: Int, y: Int) -> (Int, Int, Int)? {
        func byte(_ plane: Int, _ offset: Int) -> Int? {
            planes.indices.contains(plane) && planes[plane].bytes.indices.contains(offset) ? Int(planes[plane].bytes[offset]) : nil
        }
        let row0 = planes.first.map { y * $0.bytesPerRow } ?? 0
        switch pixelFormat {
        case .yuyv422:
            let pair = row0 + (x & ~1) * 2
            guard let luma = byte(0, row0 + x * 2), let u = byte(0, pair + 1), let v = byte(0, pair + 3) else { return nil }
            return (luma, u, v)
        case .nv12, .nv21:
            guard planes.count == 2, let luma = byte(0, row0 + x) else { return nil }
            let chroma = (y / 2) * planes[1].bytesPerRow + (x & ~1)
            guard let first = byte(1, chroma), let second = byte(1, chroma + 1) else { return nil }
            return pixelFormat == .nv12 ? (luma, first, second) : (luma, second, first)
        case .rgb24, .bgr24:
            guard let a = byte(0, row0 + x * 3), let b = byte(0, row0 + x * 3 + 1), let c = byte(0, row0 + x * 3 + 2) else { return nil }
            return pixelFormat == .rgb24 ? (a, b, c) : (c, b, a)
        default:
            return nil
        }
    }

    /// Full-range RGB at (x, y); YUV is taken as limited-range BT.601, what vivid sends for a
    /// webcam input.
    func rgb(x: Int, y: Int) -> (Int, Int, Int)? {
        guard let stored = components(x: x, y: y) else { return nil }
        guard pixelFormat.isYUV else { return stored }
        let luma = Double(stored.0 - 16) * 255 / 219, u = Double(stored.1 - 128) * 255 / 224, v = Double(stored.2 - 128) * 255 / 224
        func clamp(_ value: Double) -> Int { Int(max(0, min(255, value.rounded()))) }
        return (clamp(luma + 1.402 * v), clamp(luma - 0.344136 * u - 0.714136 * v), clamp(luma + 1.772 * u))
    }
}
