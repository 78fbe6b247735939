// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "CaptureKit",
    products: [
        .library(name: "CaptureKit", targets: ["CaptureKit"]),
        .executable(name: "capture", targets: ["capture"]),
        .executable(name: "capture-bench", targets: ["capture-bench"]),
    ],
    targets: [
        // One shim per C library (DESIGN.md): FFmpeg (libavutil, libswscale, libswresample,
        // libavcodec, libavformat).
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libswscale libswresample libavutil",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libswresample-dev", "libavutil-dev"])]
        ),
        // Photos: libjpeg-turbo's TurboJPEG API (JPEG straight from YUV planes), libexif (EXIF
        // blocks), libheif with its built-in x265 encoder (HEIF).
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CExif", pkgConfig: "libexif", providers: [.apt(["libexif-dev"])]),
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        // The media library's index: SQLite (WAL).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // Sound cards without a sound server: ALSA's libasound.
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // Sound servers: libpulse's asynchronous API (PulseAudio, and PipeWire's pulse server).
        .systemLibrary(name: "CPulse", providers: [.apt(["libpulse-dev"])]),  // no pkgConfig: its -pthread is refused
        .target(
            name: "CaptureKit",
            dependencies: ["CFFmpeg", "CTurboJPEG", "CExif", "CHeif", "CSQLite", "CALSA", "CPulse"]
        ),
        .executableTarget(name: "capture", dependencies: ["CaptureKit"]),
        .executableTarget(name: "capture-bench", dependencies: ["CaptureKit"]),
        // The seed's CQCaptureManager flow end to end.
        .executableTarget(name: "CaptureManagerDemo", dependencies: ["CaptureKit"], path: "Examples/CaptureManagerDemo"),
        .testTarget(name: "CaptureKitTests", dependencies: ["CaptureKit"]),
        // Imports only `CaptureKit` (no @testable): proves no C type leaks into the public API.
        .testTarget(name: "PublicAPITests", dependencies: ["CaptureKit"]),
    ],
    swiftLanguageModes: [.v6]
)
