import CaptureKitCore
import CaptureKitMedia
import Foundation

/// The encoded image formats ``MediaLibrary/saveImage(_:fileExtension:creationDate:)`` takes,
/// recognised by their first bytes (magic numbers) and named by file extension.
package enum MediaLibraryImageFormat: String, Sendable, Hashable, CaseIterable {
    /// JPEG/JFIF/EXIF: starts with SOI and a marker, `FF D8 FF`.
    case jpeg
    /// PNG: the 8-byte signature `89 50 4E 47 0D 0A 1A 0A`.
    case png
    /// HEIF/HEIC: an ISO BMFF `ftyp` box whose major or compatible brands are HEIF's.
    case heif
    /// DNG (a raw photo, ``CapturePhoto/isRawPhoto``): a TIFF file (`II*\0` or `MM\0*`) whose
    /// first directory has the `DNGVersion` tag. Other TIFF files are not taken.
    case dng

    /// The extensions each format may be saved under.
    package var fileExtensions: [String] {
        switch self {
        case .jpeg: return ["jpg", "jpeg"]
        case .png: return ["png"]
        case .heif: return ["heic", "heif"]
        case .dng: return ["dng"]
        }
    }

    /// The extension a file of this format is given when the caller names none: `jpg`, `png`,
    /// `heic`, `dng` (what `AVCapturePhoto` files are called).
    package var preferredFileExtension: String { fileExtensions[0] }

    /// The format an extension names (`jpg`, `JPEG`, `.png`, `heic`…), nil for any other.
    package init?(fileExtension: String) {
        let name = fileExtension.hasPrefix(".") ? String(fileExtension.dropFirst()).lowercased() : fileExtension.lowercased()
        guard let format = Self.allCases.first(where: { $0.fileExtensions.contains(name) }) else { return nil }
        self = format
    }

    /// The format `data` is in by its first bytes, nil when it is none of them.
    package init?(contentsOf data: Data) {
        let bytes = [UInt8](data.prefix(64))
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if Self.isHEIF(bytes) {
            self = .heif
        } else if Self.isDNG(data) {
            self = .dng
        } else {
            return nil
        }
    }

    /// An `ftyp` box first, with a HEIF image or sequence brand among its major and compatible
    /// brands (AVIF files carry `mif1`, so they count as HEIF here as they do for libheif).
    private static func isHEIF(_ bytes: [UInt8]) -> Bool {
        guard let box = FileTypeBox(bytes) else { return false }
        return box.brands.contains { FileTypeBox.heifImageBrands.contains($0) || FileTypeBox.heifSequenceBrands.contains($0) }
    }

    /// A TIFF header, then a first image file directory (wherever the header says it is) with
    /// the `DNGVersion` tag (50706) among its entries, as the DNG specification requires.
    private static func isDNG(_ data: Data) -> Bool {
        let bytes = [UInt8](data.prefix(8))
        let little: Bool
        switch bytes.prefix(4) {
        case [0x49, 0x49, 0x2A, 0x00]: little = true
        case [0x4D, 0x4D, 0x00, 0x2A]: little = false
        default: return false
        }
        func number(at offset: Int, size: Int) -> Int? {
            guard offset >= 0, offset + size <= data.count else { return nil }
            let start = data.startIndex + offset
            let field = data[start..<(start + size)]
            return (little ? field.reversed() : Array(field)).reduce(0) { $0 << 8 | Int($1) }
        }
        guard let directory = number(at: 4, size: 4), let count = number(at: directory, size: 2) else { return false }
        return (0..<count).contains { number(at: directory + 2 + 12 * $0, size: 2) == 50706 }
    }
}
