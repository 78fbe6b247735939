import Foundation
import Glibc
import Testing
@testable import CaptureKit

// What the media library suites share: a fresh library root per test, small images encoded by
// CaptureKit's encoders from the test pattern, and a check that the folders and the index say
// the same thing.

enum LibraryFixtures {
    /// A path for a new library root (not created: the library creates it, 0700).
    static func root(_ label: String = "library") -> URL {
        FileFixtures.directory.appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))", isDirectory: true)
    }

    /// Frame `index` of a 320x240 NV12 test pattern.
    static func frame(_ index: Int = 7) throws -> PixelBuffer {
        try TestPattern(width: 320, height: 240, pixelFormat: .nv12).render(frameIndex: index)
    }

    /// A 320x240 JPEG (libjpeg-turbo, no EXIF).
    static func jpeg(_ index: Int = 7) throws -> Data {
        try JPEGEncoder.encode(frame(index), quality: 80, metadata: nil)
    }

    /// A 320x240 PNG (FFmpeg's encoder).
    static func png() throws -> Data {
        try PNGEncoder.encode(frame(), metadata: nil)
    }

    /// A 320x240 HEIF, nil where libheif has no HEVC encoder.
    static func heif() throws -> Data? {
        guard HEIFEncoder.isAvailable else { return nil }
        return try HEIFEncoder.encode(frame(), quality: 60, metadata: nil)
    }

    /// The names in a folder (none when it is missing).
    static func names(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    /// The permission bits of a path.
    static func mode(_ url: URL) -> mode_t {
        var status = stat()
        guard stat(url.path, &status) == 0 else { return 0 }
        return status.st_mode & 0o7777
    }

    /// Checks that `library`'s folders hold exactly the indexed files: no temporary file, no
    /// file without a row, no row without its file. Returns the assets.
    @discardableResult
    static func expectConsistent(_ library: MediaLibrary, sourceLocation: SourceLocation = #_sourceLocation) throws -> [MediaAsset] {
        let assets = try library.assets()
        var files: Set<String> = []
        for folder in [library.photosDirectory, library.videosDirectory] {
            for name in names(folder) { files.insert(folder.appendingPathComponent(name).path) }
        }
        let indexed = Set(assets.map(\.fileURL.path))
        #expect(files == indexed, "files without rows: \(files.subtracting(indexed)); rows without files: \(indexed.subtracting(files))",
                sourceLocation: sourceLocation)
        #expect(Set(assets.map(\.id)).count == assets.count, "duplicate ids", sourceLocation: sourceLocation)
        return assets
    }

    /// Whether `name` is a library-made name (`yyyyMMdd-HHmmss-<UUID>.<ext>`) for `id`.
    static func isGeneratedName(_ name: String, id: String) -> Bool {
        name.range(of: #"^[0-9]{8}-[0-9]{6}-[0-9A-F-]{36}\.[a-z0-9]+$"#, options: .regularExpression) != nil
            && name.contains(id) && MediaLibrary.id(fromFileName: name) == id
    }
}
