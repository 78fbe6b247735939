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

    /// The extensions each format may be saved under.
    package var fileExtensions: [String] {
        switch self {
        case .jpeg: return ["jpg", "jpeg"]
        case .png: return ["png"]
        case .heif: return ["heic", "heif"]
        }
    }

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
        } else {
            return nil
        }
    }

    /// HEIF brands: HEVC images and sequences, and the generic image-file brands.
    private static let heifBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "mif1", "msf1"]

    /// An `ftyp` box first, with a HEIF brand among its major and compatible brands.
    private static func isHEIF(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 16, Array(bytes[4..<8]) == Array("ftyp".utf8) else { return false }
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let end = min(bytes.count, max(16, boxSize))
        var brands = [String(decoding: bytes[8..<12], as: UTF8.self)]
        var offset = 16
        while offset + 4 <= end {
            brands.append(String(decoding: bytes[offset..<offset + 4], as: UTF8.self))
            offset += 4
        }
        return brands.contains { heifBrands.contains($0) }
    }
}
