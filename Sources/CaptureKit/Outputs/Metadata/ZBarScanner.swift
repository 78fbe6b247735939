internal import CZBar

/// Finds barcodes and QR codes in 8-bit luma with ZBar (`zbar_image_scanner_t`), reading the
/// frame's plane in place: rows padded beyond the width are handed to ZBar as a wider image
/// cropped to the picture, so no plane is ever copied. Not thread-safe: one per output thread.
final class ZBarScanner {
    /// The types ZBar 0.23 decodes, with its symbology for each. Data Matrix has no ZBar
    /// decoder, and ZBar's PDF417 decoder was never finished (it reports no symbol), so those
    /// two are read by ``ZXingScanner``.
    static let symbologies: [(MetadataObject.ObjectType, zbar_symbol_type_t)] = [
        (.qr, ZBAR_QRCODE), (.ean13, ZBAR_EAN13), (.ean8, ZBAR_EAN8), (.upca, ZBAR_UPCA), (.upce, ZBAR_UPCE),
        (.code39, ZBAR_CODE39), (.code93, ZBAR_CODE93), (.code128, ZBAR_CODE128), (.interleaved2of5, ZBAR_I25),
        (.codabar, ZBAR_CODABAR),
    ]

    static let supportedTypes = symbologies.map(\.0)

    private let scanner: OpaquePointer
    private let image: OpaquePointer
    private var enabled: Set<MetadataObject.ObjectType> = []

    /// Wraps `zbar_image_scanner_create` and `zbar_image_create`.
    init() throws(CaptureError) {
        try loadSharedLibrary("ZBar", ck_zbar_load)
        guard let scanner = zbar_image_scanner_create() else {
            throw CaptureError(.outOfMemory, "ZBar could not make an image scanner")
        }
        guard let image = zbar_image_create() else {
            zbar_image_scanner_destroy(scanner)
            throw CaptureError(.outOfMemory, "ZBar could not make an image")
        }
        self.scanner = scanner
        self.image = image
        zbar_image_set_format(image, ck_zbar_format_y800())
        // Start with every symbology off; `setTypes` turns on what is asked for.
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        // QR payloads as the bytes they are; `stringValue` is made from them without ZBar's
        // character-set guessing.
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
    }

    deinit {
        zbar_image_destroy(image)
        zbar_image_scanner_destroy(scanner)
    }

    /// Looks for exactly `types` (`ZBAR_CFG_ENABLE`); unsupported ones are ignored (the output
    /// refuses them before they get here).
    func setTypes(_ types: Set<MetadataObject.ObjectType>) {
        guard types != enabled else { return }
        // ZBar reads UPC-A inside its EAN-13 decoder, so that one runs for UPC-A too; the EAN-13
        // codes it then finds are dropped unless asked for.
        let decoders = types.contains(.upca) ? types.union([.ean13]) : types
        for (type, symbology) in Self.symbologies {
            zbar_image_scanner_set_config(scanner, symbology, ZBAR_CFG_ENABLE, decoders.contains(type) ? 1 : 0)
        }
        enabled = types
    }

    /// Scans `crop` of a `width`×`height` luma plane whose rows are `bytesPerRow` apart
    /// (`zbar_scan_image`). The plane must stay valid for the call only.
    func scan(luma: UnsafeRawPointer, bytesPerRow: Int, width: Int, height: Int, crop: PixelRect) throws(CaptureError) -> [DetectedCode] {
        guard bytesPerRow >= width else { throw .internalError("luma rows of \(bytesPerRow) bytes are shorter than \(width) pixels") }
        zbar_image_set_size(image, UInt32(bytesPerRow), UInt32(height))
        zbar_image_set_crop(image, UInt32(crop.x), UInt32(crop.y), UInt32(min(crop.width, width - crop.x)), UInt32(crop.height))
        zbar_image_set_data(image, luma, UInt(bytesPerRow * height), nil)
        defer {
            // Results and the borrowed plane are released before the frame is.
            zbar_image_scanner_recycle_image(scanner, image)
            zbar_image_set_data(image, nil, 0, nil)
        }
        let found = zbar_scan_image(scanner, image)
        guard found >= 0 else { throw CaptureError(.internalError, "ZBar failed to scan a \(width)x\(height) frame", operation: "zbar_scan_image") }
        var symbols: [DetectedCode] = []
        var next = zbar_image_first_symbol(image)
        while let symbol = next {
            next = zbar_symbol_next(symbol)
            if let decoded = Self.symbol(symbol), enabled.contains(decoded.type) { symbols.append(decoded) }
        }
        return symbols
    }

    private static func symbol(_ symbol: OpaquePointer) -> DetectedCode? {
        let kind = zbar_symbol_get_type(symbol)
        guard let type = symbologies.first(where: { $0.1 == kind })?.0 else { return nil }
        let count = Int(zbar_symbol_get_data_length(symbol))
        var data = [UInt8](repeating: 0, count: count)
        if count > 0, let bytes = zbar_symbol_get_data(symbol) {
            data.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: bytes, count: count)) }
        }
        let points = (0..<zbar_symbol_get_loc_size(symbol)).map {
            (x: Double(zbar_symbol_get_loc_x(symbol, $0)), y: Double(zbar_symbol_get_loc_y(symbol, $0)))
        }
        guard !points.isEmpty else { return nil }
        let minX = points.map(\.x).min()!, maxX = points.map(\.x).max()!
        let minY = points.map(\.y).min()!, maxY = points.map(\.y).max()!
        let corners: [(x: Double, y: Double)]
        if type == .qr, points.count == 4 {
            // ZBar lists a QR code's corners as top-left, bottom-left, bottom-right, top-right.
            corners = [points[0], points[3], points[2], points[1]]
        } else {
            // A barcode is located by the ends of the scan lines that read it; its corners are
            // those of their box, starting where its reading direction puts the top-left.
            let box = [(x: minX, y: minY), (x: maxX, y: minY), (x: maxX, y: maxY), (x: minX, y: maxY)]
            let start: Int
            switch zbar_symbol_get_orientation(symbol) {
            case ZBAR_ORIENT_RIGHT: start = 1
            case ZBAR_ORIENT_DOWN: start = 2
            case ZBAR_ORIENT_LEFT: start = 3
            default: start = 0
            }
            corners = (0..<4).map { box[(start + $0) % 4] }
        }
        return DetectedCode(type: type, data: data, corners: corners, points: points)
    }
}
