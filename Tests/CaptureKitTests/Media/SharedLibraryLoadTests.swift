import CFFmpeg
import CLibraryLoader
import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitMedia

/// The libraries CaptureKit opens on first use (FFmpeg, libheif, ZBar, SDL2, libmicrohttpd,
/// libsrt: CLibraryLoader.h): the real loader against real shared libraries, and the `capture`
/// executable watched by the dynamic loader's own trace (`LD_DEBUG=files`).
@Suite(.tags(.childProcess))
struct SharedLibraryLoadTests {
    /// What `LD_DEBUG=files` names when one of the first-use libraries is mapped.
    static let firstUseLibraries = ["libavformat.so", "libavcodec.so", "libswscale.so", "libswresample.so", "libavutil.so",
                                    "libheif.so", "libzbar.so", "libSDL2", "libmicrohttpd.so", "libsrt"]

    @Test func listingDevicesMapsNoneOfTheFirstUseLibraries() throws {
        let result = try CaptureTool.run(["devices"], through: ["/usr/bin/env", "LD_DEBUG=files"])
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("Virtual Camera"))
        // The trace is there (a library the command does need is in it), so an absence means something.
        #expect(result.errors.contains("file=libpulse.so.0"), "no loader trace: \(result.errors.prefix(400))")
        let mapped = Self.firstUseLibraries.filter { result.errors.contains("file=\($0)") }
        #expect(mapped.isEmpty, "capture devices mapped \(mapped)")
    }

    @Test func aHEIFPhotoOpensLibheifAndFFmpegWhenFirstUsed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ck-lazy-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = directory.appendingPathComponent("photo.heic")
        let result = try CaptureTool.run(["photo", "--format", "heif", "--size", "320x240", photo.path],
                                         through: ["/usr/bin/env", "LD_DEBUG=files"])
        #expect(result.status == 0, "\(result.output) \(result.errors.suffix(400))")
        #expect(result.errors.contains("file=libheif.so.1 [0];  dynamically loaded by"))
        #expect(result.errors.contains("file=libavformat.so.59 [0];  dynamically loaded by"))
        let data = try Data(contentsOf: photo)
        #expect(HEIFImage.isHEIF(data), "\(data.count) bytes that libheif does not take for HEIF")
    }

    @Test func anAbsentLibraryIsAReasonNamingItAndItsPackage() throws {
        let library = LoaderLibrary(sonames: ["libcapturekit-absent.so.9"], package: "capturekit-absent9")
        let error = #expect(throws: CaptureError.self) {
            try loadSharedLibrary("the absent library") { ck_library_open(library.pointer, $0, $1) }
        }
        #expect(error?.code == .notSupported)
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("the absent library cannot be loaded"), "\(text)")
        #expect(text.contains("libcapturekit-absent.so.9"), "\(text)")
        #expect(text.contains("install the package capturekit-absent9"), "\(text)")
        // Asked again, the same answer without another dlopen: the reason is kept.
        let again = #expect(throws: CaptureError.self) {
            try loadSharedLibrary("the absent library") { ck_library_open(library.pointer, $0, $1) }
        }
        #expect(again.map { "\($0)" } == text)
    }

    @Test func aPresentLibrarysFunctionIsFoundAndCalled() throws {
        // The first soname is absent: the loader goes on to the next.
        let library = LoaderLibrary(sonames: ["libz.so.0-capturekit-absent", "libz.so.1"], package: "zlib1g")
        try loadSharedLibrary("zlib") { ck_library_open(library.pointer, $0, $1) }
        var cache: UnsafeMutableRawPointer?
        let address = try #require(ck_library_function(library.pointer, "zlibVersion", &cache))
        #expect(cache == address)
        typealias Version = @convention(c) () -> UnsafePointer<CChar>
        let version = String(cString: unsafeBitCast(address, to: Version.self)())
        #expect(version.hasPrefix("1."), "zlibVersion() said \(version)")
    }

    @Test func ffmpegIsPreparedThroughTheLoader() throws {
        try FFmpeg.prepare()
        #expect(ck_ffmpeg_load(nil, 0) == 0)
        #expect(avformat_version() >> 16 == UInt32(LIBAVFORMAT_VERSION_MAJOR))
    }
}

/// A `ck_library` as a shim's static `CK_LIBRARY(...)` makes one, for the loader's tests.
private final class LoaderLibrary {
    let pointer = UnsafeMutablePointer<ck_library>.allocate(capacity: 1)
    private let strings: [UnsafeMutablePointer<CChar>]
    private let sonames: UnsafeMutablePointer<UnsafePointer<CChar>?>

    init(sonames names: [String], package: String) {
        strings = (names + [package]).map { strdup($0)! }
        sonames = .allocate(capacity: names.count + 1)
        for index in names.indices { sonames[index] = UnsafePointer(strings[index]) }
        sonames[names.count] = nil
        // All zeros is an unlocked mutex in glibc, as PTHREAD_MUTEX_INITIALIZER is.
        pointer.initialize(to: ck_library())
        pointer.pointee.sonames = UnsafePointer(sonames)
        pointer.pointee.package = UnsafePointer(strings[names.count])
    }

    deinit {
        pointer.deallocate()
        sonames.deallocate()
        strings.forEach { free($0) }
    }
}
