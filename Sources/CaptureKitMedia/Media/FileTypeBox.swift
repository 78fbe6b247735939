import Foundation

/// The `ftyp` box an ISO base media file opens with (MP4, QuickTime, HEIF, AVIF): the major
/// and compatible brands, which say what the file is before any parser opens it. HEIF photos
/// are told from movies by these brands, never by their extension (`AVFileType.heic` is what
/// `AVCapturePhoto` names the same brands).
package struct FileTypeBox: Sendable, Hashable {
    /// The brand the file mainly follows (`heic`, `mif1`, `isom`, `qt  `).
    package var majorBrand: String
    /// The other brands it is compatible with, in file order.
    package var compatibleBrands: [String]

    /// The major brand, then the compatible ones.
    package var brands: [String] { [majorBrand] + compatibleBrands }

    /// HEIF still-image brands (ISO/IEC 23008-12): HEVC images (`heic`, `heix`), their layered
    /// kinds (`heim`, `heis`), and `mif1`, the brand of any image file (AVIF files carry it too).
    package static let heifImageBrands: Set<String> = ["heic", "heix", "heim", "heis", "mif1"]
    /// HEIF image-sequence brands: HEVC sequences and `msf1`, the brand of any sequence file.
    package static let heifSequenceBrands: Set<String> = ["hevc", "hevx", "hevm", "hevs", "msf1"]
    /// AVIF's brands: a still (`avif`) and a sequence (`avis`).
    package static let avifBrands: Set<String> = ["avif", "avis"]

    /// The box at the start of `head` (a file's first bytes: 64 hold any real `ftyp` box);
    /// nil when they do not start with one. Brands past the box's end are not read.
    package init?(_ head: some Collection<UInt8>) {
        let bytes = Array(head.prefix(256))
        // Size (4), "ftyp" (4), major brand (4), minor version (4), then 4 bytes per brand.
        guard bytes.count >= 16, bytes[4..<8].elementsEqual("ftyp".utf8) else { return nil }
        let size = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        // Size 0 runs to the end of the file; 1 (a 64-bit size) is never used for so small a box.
        guard size == 0 || size >= 16 else { return nil }
        let end = size == 0 ? bytes.count : min(bytes.count, size)
        majorBrand = String(decoding: bytes[8..<12], as: UTF8.self)
        compatibleBrands = stride(from: 16, to: end - 3, by: 4).map { String(decoding: bytes[$0..<$0 + 4], as: UTF8.self) }
    }

    /// Whether the brands say a HEIF or AVIF still image: a HEIF image brand or `avif` among them.
    package var isHEIFImage: Bool {
        brands.contains { Self.heifImageBrands.contains($0) || $0 == "avif" }
    }

    /// Whether the file is mainly AVIF (an AV1-coded HEIF): its major brand is AVIF's.
    package var isAVIF: Bool { Self.avifBrands.contains(majorBrand) }
}
