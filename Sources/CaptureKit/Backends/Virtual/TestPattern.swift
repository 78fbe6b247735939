import Glibc

/// The virtual camera's picture: colour bars and a grey ramp scrolling sideways, a white box
/// bouncing around, and the frame number and frame time burned in. Every pixel depends only
/// on the frame index, size, format and frame duration, so a test can render frame *n* itself
/// and compare it with what a session captured.
///
/// ```swift
/// let pattern = try TestPattern(width: 640, height: 480, pixelFormat: .nv12)
/// let expected = try pattern.render(frameIndex: 42)
/// ```
public final class TestPattern: Sendable {
    /// Frame width.
    public let width: Int
    /// Frame height.
    public let height: Int
    /// Frame layout.
    public let pixelFormat: PixelFormat
    /// The frame duration used for the burned-in time.
    public let frameDuration: MediaTime

    /// Two band rows (bars, ramp), two pixel rows each so 4:2:0 chroma has a row, twice the
    /// frame width so any scroll offset is one contiguous copy.
    private let tile: PixelBuffer
    private let pool: PixelBufferPool
    private let scale: Int
    private let white: PlaneBytes
    private let black: PlaneBytes

    /// The bytes of one pixel group of each plane, for one colour.
    typealias PlaneBytes = [[UInt8]]

    /// A pattern for frames of this size and layout. YUV layouts are drawn directly; RGB
    /// layouts are not supported by the virtual camera and give `.unsupportedFormat`.
    public init(width: Int, height: Int, pixelFormat: PixelFormat,
                frameDuration: MediaTime = MediaTime(value: 1, timescale: 30)) throws(CaptureError) {
        guard pixelFormat.isYUV else {
            throw CaptureError(.unsupportedFormat, "the test pattern draws YUV formats only, not \(pixelFormat)")
        }
        guard width >= 64, height >= 64, width % 2 == 0, height % 2 == 0 else {
            throw .invalidArgument("test pattern frames must be even-sized and at least 64x64, not \(width)x\(height)")
        }
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.frameDuration = frameDuration.isNumeric ? frameDuration : MediaTime(value: 1, timescale: 30)
        pool = try PixelBufferPool(width: width, height: height, pixelFormat: pixelFormat)
        scale = max(2, (height / 120) & ~1)
        tile = try Self.makeTile(width: width, pixelFormat: pixelFormat)
        white = Self.planeBytes(pixelFormat, Self.yuv(r: 255, g: 255, b: 255))
        black = Self.planeBytes(pixelFormat, Self.yuv(r: 0, g: 0, b: 0))
    }

    /// Frame `frameIndex` in a new (pooled) buffer.
    public func render(frameIndex: Int) throws(CaptureError) -> PixelBuffer {
        let buffer = try pool.makeBuffer()
        draw(frameIndex: frameIndex, into: buffer)
        return buffer
    }

    /// Draws frame `frameIndex` into `buffer` (same size and format as the pattern).
    func draw(frameIndex: Int, into buffer: PixelBuffer) {
        precondition(buffer.width == width && buffer.height == height && buffer.pixelFormat == pixelFormat)
        let scroll = (frameIndex * 4) % width & ~1
        let barsEnd = height * 2 / 3 & ~1
        for (index, plane) in buffer.planes.enumerated() {
            let layout = pixelFormat.planeLayouts[index]
            let rowBytes = pixelFormat.minimumBytesPerRow(plane: index, width: width)
            let offset = scroll / layout.pixelsPerGroup * layout.bytesPerGroup
            let tilePlane = tile.planes[index]
            for row in 0..<plane.rowCount {
                let band = row * layout.verticalSubsampling < barsEnd ? 0 : 1
                let source = tile.storage.bytes + tilePlane.offset + (band * 2 / layout.verticalSubsampling) * tilePlane.bytesPerRow + offset
                memcpy(buffer.storage.bytes + plane.offset + row * plane.bytesPerRow, source, rowBytes)
            }
        }
        // The bouncing box: a triangle wave in x and y with different periods.
        let box = height / 6 & ~1
        let x = Self.bounce(frameIndex * 6 + width / 2, range: width - box) & ~1
        let y = Self.bounce(frameIndex * 4 + height / 2, range: height - box) & ~1
        Self.fill(buffer, x: x, y: y, width: box, height: box, with: white)

        let ticks = frameDuration.value * Int64(frameIndex)
        let milliseconds = ticks * 1000 / Int64(frameDuration.timescale)
        let text1 = "FRAME \(Self.padded(frameIndex, 6))"
        let text2 = "T \(Self.padded(Int(milliseconds / 3_600_000), 2)):\(Self.padded(Int(milliseconds / 60_000 % 60), 2)):\(Self.padded(Int(milliseconds / 1000 % 60), 2)).\(Self.padded(Int(milliseconds % 1000), 3))"
        drawText(text1, into: buffer, x: scale * 2, y: scale * 2)
        drawText(text2, into: buffer, x: scale * 2, y: scale * 12)
    }

    private static func bounce(_ value: Int, range: Int) -> Int {
        guard range > 0 else { return 0 }
        let phase = value % (2 * range)
        return phase < range ? phase : 2 * range - phase
    }

    private static func padded(_ value: Int, _ digits: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    // MARK: Drawing

    struct YUV { var y: UInt8, u: UInt8, v: UInt8 }

    private func drawText(_ text: String, into buffer: PixelBuffer, x: Int, y: Int) {
        let cell = scale
        let advance = 6 * cell
        Self.fill(buffer, x: x - cell, y: y - cell, width: advance * text.count + cell, height: 9 * cell, with: black)
        for (position, character) in text.enumerated() {
            guard let rows = Self.font[character] else { continue }
            for (rowIndex, bits) in rows.enumerated() {
                for column in 0..<5 where bits & (0x10 >> column) != 0 {
                    Self.fill(buffer, x: x + position * advance + column * cell, y: y + rowIndex * cell,
                              width: cell, height: cell, with: white)
                }
            }
        }
    }

    /// Fills a rectangle, snapped to even coordinates so subsampled chroma stays aligned.
    static func fill(_ buffer: PixelBuffer, x: Int, y: Int, width w: Int, height h: Int, with colour: PlaneBytes) {
        let x0 = max(0, x) & ~1, y0 = max(0, y) & ~1
        let x1 = min(buffer.width, x + w + 1) & ~1, y1 = min(buffer.height, y + h + 1) & ~1
        guard x1 > x0, y1 > y0 else { return }
        let base = buffer.storage.bytes
        for (index, plane) in buffer.planes.enumerated() {
            let layout = buffer.pixelFormat.planeLayouts[index]
            let pattern = colour[index]
            let start = x0 / layout.pixelsPerGroup * layout.bytesPerGroup
            let count = (x1 - x0) / layout.pixelsPerGroup
            for row in (y0 / layout.verticalSubsampling)..<(y1 / layout.verticalSubsampling) {
                var p = base + plane.offset + row * plane.bytesPerRow + start
                for _ in 0..<count {
                    for byte in pattern {
                        p.storeBytes(of: byte, as: UInt8.self)
                        p += 1
                    }
                }
            }
        }
    }

    /// The bytes of one pixel group of every plane of `format` in colour `c`.
    static func planeBytes(_ format: PixelFormat, _ c: YUV) -> PlaneBytes {
        (0..<format.planeCount).map { bytes(of: format, plane: $0, color: c) }
    }

    private static func bytes(of format: PixelFormat, plane: Int, color c: YUV) -> [UInt8] {
        switch (format, plane) {
        case (.yuyv422, _): return [c.y, c.u, c.y, c.v]
        case (.uyvy422, _): return [c.u, c.y, c.v, c.y]
        case (.nv12, 1): return [c.u, c.v]
        case (.nv21, 1): return [c.v, c.u]
        case (.yuv420p, 1), (.yuv422p, 1): return [c.u]
        case (.yuv420p, 2), (.yuv422p, 2): return [c.v]
        default: return [c.y]
        }
    }

    /// BT.601 limited-range YUV of an 8-bit RGB colour (what swscale assumes by default).
    static func yuv(r: Int, g: Int, b: Int) -> YUV {
        let y = (66 * r + 129 * g + 25 * b + 128) >> 8 + 16
        let u = (-38 * r - 74 * g + 112 * b + 128) >> 8 + 128
        let v = (112 * r - 94 * g - 18 * b + 128) >> 8 + 128
        return YUV(y: UInt8(clamping: y), u: UInt8(clamping: u), v: UInt8(clamping: v))
    }

    private static func makeTile(width: Int, pixelFormat: PixelFormat) throws(CaptureError) -> PixelBuffer {
        let tile = try PixelBuffer(width: width * 2, height: 4, pixelFormat: pixelFormat)
        let bars: [(Int, Int, Int)] = [(191, 191, 191), (191, 191, 0), (0, 191, 191), (0, 191, 0),
                                       (191, 0, 191), (191, 0, 0), (0, 0, 191), (16, 16, 16)]
        for x in stride(from: 0, to: width, by: 2) {
            let (r, g, b) = bars[x * bars.count / width]
            let bar = planeBytes(pixelFormat, yuv(r: r, g: g, b: b))
            let grey = 255 * x / width
            let ramp = planeBytes(pixelFormat, yuv(r: grey, g: grey, b: grey))
            for copy in [x, x + width] {
                fill(tile, x: copy, y: 0, width: 2, height: 2, with: bar)
                fill(tile, x: copy, y: 2, width: 2, height: 2, with: ramp)
            }
        }
        return tile
    }

    /// A 5×7 bitmap font for the characters the overlay uses.
    private static let font: [Character: [UInt8]] = [
        "0": [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E], "1": [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        "2": [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F], "3": [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        "4": [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02], "5": [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        "6": [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E], "7": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        "8": [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E], "9": [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        "F": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10], "R": [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
        "A": [0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11], "M": [0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11],
        "E": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F], "T": [0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
        ":": [0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00], ".": [0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C],
    ]
}

