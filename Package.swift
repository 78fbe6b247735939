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
        // One shim per C library (DESIGN.md): FFmpeg's libavutil + libswscale + libswresample.
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavutil libswscale libswresample",
            providers: [.apt(["libavutil-dev", "libswscale-dev", "libswresample-dev"])]
        ),
        .target(
            name: "CaptureKit",
            dependencies: ["CFFmpeg"]
        ),
        .executableTarget(name: "capture", dependencies: ["CaptureKit"]),
        .executableTarget(name: "capture-bench", dependencies: ["CaptureKit"]),
        .testTarget(name: "CaptureKitTests", dependencies: ["CaptureKit"]),
        // Imports only `CaptureKit` (no @testable): proves no C type leaks into the public API.
        .testTarget(name: "PublicAPITests", dependencies: ["CaptureKit"]),
    ],
    swiftLanguageModes: [.v6]
)
