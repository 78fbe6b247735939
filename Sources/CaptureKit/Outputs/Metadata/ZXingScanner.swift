internal import CZXing

/// Finds Data Matrix and PDF417 symbols in 8-bit luma with zxing-cpp (through the CZXing
/// wrapper), reading the frame's plane in place with its row stride and cropped to the rect of
/// interest. Stateless; used from the output's thread.
enum ZXingScanner {
    /// The types read here, with the wrapper's flag for each.
    static let formats: [(MetadataObject.ObjectType, Int32)] = [
        (.dataMatrix, Int32(CK_ZXING_DATA_MATRIX)), (.pdf417, Int32(CK_ZXING_PDF417)),
    ]

    static let supportedTypes = formats.map(\.0)

    /// Scans `crop` of a `width`×`height` luma plane whose rows are `bytesPerRow` apart for
    /// those of `types` this scanner reads (`ZXing::ReadBarcodes`).
    static func scan(_ types: Set<MetadataObject.ObjectType>, luma: UnsafeRawPointer, bytesPerRow: Int, width: Int, height: Int,
                     crop: PixelRect) throws(CaptureError) -> [DetectedCode] {
        let flags = formats.filter { types.contains($0.0) }.reduce(Int32(0)) { $0 | $1.1 }
        guard flags != 0 else { return [] }
        var message = [CChar](repeating: 0, count: 256)
        guard let results = ck_zxing_read(luma.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), Int32(bytesPerRow),
                                          Int32(crop.x), Int32(crop.y), Int32(crop.width), Int32(crop.height), flags,
                                          &message, message.count) else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw CaptureError(.internalError, "zxing-cpp failed to scan a \(width)x\(height) frame: \(text)", operation: "ZXing::ReadBarcodes")
        }
        defer { ck_zxing_results_free(results) }
        return (0..<ck_zxing_results_count(results)).compactMap { index in
            let flag = ck_zxing_result_format(results, index)
            guard let type = formats.first(where: { $0.1 == flag })?.0 else { return nil }
            var count = 0
            let bytes = ck_zxing_result_bytes(results, index, &count)
            let data = bytes.map { [UInt8](UnsafeBufferPointer(start: $0, count: count)) } ?? []
            var xy = [Int32](repeating: 0, count: 8)
            ck_zxing_result_corners(results, index, &xy)
            let corners = (0..<4).map { (x: Double(xy[2 * $0]), y: Double(xy[2 * $0 + 1])) }
            return DetectedCode(type: type, data: data, corners: corners, points: corners)
        }
    }
}
