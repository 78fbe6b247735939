import Glibc

/// The moment a frame was made, painted into its picture by ``StampedRTSPCamera`` and read back
/// from the luma of the decoded frame by both readers of `network-frame-age`; painted by
/// ``paint(_:into:bytesPerRow:)`` into `glass-to-glass`'s pictures (there a frame's loop
/// position for CaptureKit's camera, the clock for ffmpeg's input: see ``GlassFrames``).
///
/// Three lines of ``columns`` blocks of ``block``×``block`` pixels at the top left, one bit
/// each (black 0, white 1), most significant first: the high and the low 32 bits of the
/// CLOCK_MONOTONIC nanoseconds, then a check word (high ^ low ^ ``check``). Blocks that size,
/// aligned to H.264's macroblocks, in full black and white, come through any sane encode; the
/// check word and a margin around mid-grey tell a stamp that did not (a frame decoded from a
/// broken reference) from a real one, so such a frame is counted, not measured.
enum FrameStamp {
    static let block = 16
    static let columns = 32
    static let check: UInt32 = 0x5A5A_5A5A

    /// Where a picture's luma is: `bytesPerRow` apart, a pixel's luma every `pixelStride`
    /// bytes from `offset` (1 and 0 for planar and semi-planar formats and grey; 2 and 0 for
    /// YUYV, 2 and 1 for UYVY).
    struct Luma {
        var bytes: UnsafeRawBufferPointer
        var bytesPerRow: Int
        var pixelStride = 1
        var offset = 0
        var width: Int
        var height: Int
    }

    /// Paints `value` into a planar 8-bit luma plane at least ``columns`` × ``block`` wide and
    /// three blocks high, as ``read(_:)`` reads it (the Python painter of ``StampedRTSPCamera``
    /// writes the same layout).
    static func paint(_ value: Int64, into luma: UnsafeMutableRawBufferPointer, bytesPerRow: Int) {
        let bits = UInt64(bitPattern: value)
        let high = UInt32(truncatingIfNeeded: bits >> 32), low = UInt32(truncatingIfNeeded: bits)
        precondition(bytesPerRow >= columns * block && luma.count >= (3 * block - 1) * bytesPerRow + columns * block)
        for (line, word) in [high, low, high ^ low ^ check].enumerated() {
            for column in 0..<columns {
                let shade: Int32 = (word >> UInt32(columns - 1 - column)) & 1 == 1 ? 0xFF : 0x00
                for y in (line * block)..<((line + 1) * block) {
                    memset(luma.baseAddress! + y * bytesPerRow + column * block, shade, block)
                }
            }
        }
    }

    /// The stamp in `luma`, nil when it cannot be read: the picture is too small, a block's
    /// centre is neither clearly dark nor clearly light, or the check word does not match.
    static func read(_ luma: Luma) -> Int64? {
        guard luma.width >= columns * block, luma.height >= 3 * block,
              luma.bytes.count >= (3 * block - 1) * luma.bytesPerRow + columns * block * luma.pixelStride else { return nil }
        var words: [UInt32] = []
        for line in 0..<3 {
            var word: UInt32 = 0
            for column in 0..<columns {
                guard let value = bit(atLine: line, column: column, in: luma) else { return nil }
                word = word << 1 | (value ? 1 : 0)
            }
            words.append(word)
        }
        guard words[0] ^ words[1] ^ check == words[2] else { return nil }
        return Int64(bitPattern: UInt64(words[0]) << 32 | UInt64(words[1]))
    }

    /// One block's bit from the mean of its centre 8×8 pixels (the edges are where the codec's
    /// ringing is), thresholded at mid-grey; nil when the mean is within a quarter of the range
    /// of it.
    private static func bit(atLine line: Int, column: Int, in luma: Luma) -> Bool? {
        let inset = block / 4
        var sum = 0
        for y in (line * block + inset)..<(line * block + block - inset) {
            let row = y * luma.bytesPerRow + luma.offset
            for x in (column * block + inset)..<(column * block + block - inset) {
                sum += Int(luma.bytes[row + x * luma.pixelStride])
            }
        }
        let mean = sum / ((block - 2 * inset) * (block - 2 * inset))
        if mean < 64 { return false }
        if mean > 192 { return true }
        return nil
    }
}
