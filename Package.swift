// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "CaptureKit",
    products: [
        .library(name: "CaptureKit", targets: ["CaptureKit"]),
        .library(name: "CaptureKitPreview", targets: ["CaptureKitPreview"]),
        .executable(name: "capture", targets: ["capture"]),
        .executable(name: "capture-bench", targets: ["capture-bench"]),
        // libcamera's cameras: loaded by CaptureKit on first use from beside the binary (or the
        // library path); an application may also link it (see DevicesOnLinux).
        .library(name: "CaptureKitLibCamera", type: .dynamic, targets: ["CLibCameraPlugin"]),
    ],
    targets: [
        // One shim per C library (DESIGN.md): FFmpeg (libavutil, libswscale, libswresample,
        // libavcodec, libavformat).
        // Opened on first use (CLibraryLoader), as are libheif, ZBar, libsrt, SDL2 and
        // libmicrohttpd: linked, they cost every process ~40 ms of loading before main.
        .target(name: "CLibraryLoader", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "CFFmpeg", dependencies: ["CLibraryLoader"]),
        // Photos: libjpeg-turbo's TurboJPEG API (JPEG straight from YUV planes), libexif (EXIF
        // blocks), libheif with its built-in x265 encoder (HEIF).
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CExif", pkgConfig: "libexif", providers: [.apt(["libexif-dev"])]),
        .target(name: "CHeif", dependencies: ["CLibraryLoader"]),
        // Raw photos: DNG files from Bayer frames, by libtiff (which knows DNG's tags).
        .target(name: "CTIFF", dependencies: ["CLibraryLoader"]),
        // The media library's index: SQLite (WAL).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The metadata output's barcode and QR code scanner: ZBar, on the luma plane.
        .target(name: "CZBar", dependencies: ["CLibraryLoader"]),
        // Data Matrix and PDF417, which ZBar cannot read: zxing-cpp (C++), behind a C interface.
        .target(name: "CZXing", linkerSettings: [.linkedLibrary("ZXing")]),
        // Cameras: the kernel's V4L2 API (linux/videodev2.h; header only).
        .systemLibrary(name: "CV4L2", providers: [.apt(["linux-libc-dev"])]),
        // Sound cards without a sound server: ALSA's libasound.
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // Sound servers: libpulse's asynchronous API (PulseAudio, and PipeWire's pulse server).
        .systemLibrary(name: "CPulse", providers: [.apt(["libpulse-dev"])]),  // no pkgConfig: its -pthread is refused
        // Live preview: an SDL2 window, and a libmicrohttpd web page.
        // No pkgConfig: sdl2.pc adds -D_REENTRANT, which SwiftPM refuses with a warning; the headers
        // are found as <SDL2/SDL.h> under /usr/include.
        .target(name: "CSDL2", dependencies: ["CLibraryLoader"]),
        // libyuv: the conversions it does faster than libswscale; luma extraction and
        // box-filtered downscaling for the motion output.
        .systemLibrary(name: "CYUV", providers: [.apt(["libyuv-dev"])]),
        // The SRT link's statistics (round-trip time) under FFmpeg's srt:// protocol: libsrt,
        // the GnuTLS flavour FFmpeg itself is linked with.
        .target(name: "CSRT", dependencies: ["CLibraryLoader"]),
        // PipeWire cameras: libpipewire's registry and pw_stream, with the SPA pods built in C.
        // A C target rather than a system library: libpipewire-0.3.pc adds -D_REENTRANT,
        // which SwiftPM refuses, and its headers are not under /usr/include itself.
        // The Camera portal over D-Bus (sd-bus): a C interface, since sd-bus's calls are variadic.
        .target(name: "CSDBus", linkerSettings: [.linkedLibrary("systemd")]),
        .target(name: "CPipeWire", cSettings: [.unsafeFlags(["-I/usr/include/pipewire-0.3", "-I/usr/include/spa-0.2", "-D_REENTRANT"])],
                linkerSettings: [.linkedLibrary("pipewire-0.3")]),
        // libcamera's cameras (Raspberry Pi camera modules, MIPI cameras of embedded boards,
        // vimc): its C++ API behind a C function table (version checks inside), in a library of
        // its own that CaptureKit loads on first use — linking libcamera costs every process
        // ~20 ms at start-up. CLibCamera is the table's header and its loader.
        .target(name: "CLibCamera", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "CLibCameraPlugin", dependencies: ["CLibCamera"], cxxSettings: [.unsafeFlags(["-I/usr/include/libcamera"])],
                linkerSettings: [.linkedLibrary("camera"), .linkedLibrary("camera-base")]),
        .target(name: "CMicroHTTPD", dependencies: ["CLibraryLoader"]),
        // The photo encoder's plane kernels (range expansion, packed and semi-planar to planar,
        // turning by multiples of 90 degrees): SSE2 with scalar fallbacks, in C.
        .target(name: "CPhotoKernels"),
        // The motion output's per-pixel passes (difference histogram, change mask, background
        // update) over a small grey picture, in C so they vectorise.
        .target(name: "CMotionKernels"),
        // The vocabulary every layer shares (MediaTime, buffers, SampleBuffer, CaptureError, the
        // session clock) and the thread helpers: no C, no devices. Re-exported by CaptureKit.
        .target(name: "CaptureKitCore"),
        // Media files and codecs: FFmpeg (decode, encode, mux, convert), JPEG/PNG/HEIF photos,
        // EXIF, probing. No devices, no session. Re-exported by CaptureKit.
        .target(
            name: "CaptureKitMedia",
            dependencies: ["CaptureKitCore", "CFFmpeg", "CTurboJPEG", "CExif", "CHeif", "CTIFF", "CPhotoKernels", "CYUV"]
        ),
        // The "Photos" part: the media library (files plus a SQLite index), thumbnails, saving.
        // Re-exported by CaptureKit.
        .target(name: "CaptureKitLibrary", dependencies: ["CaptureKitCore", "CaptureKitMedia", "CSQLite"]),
        // Devices, backends, discovery, the session, its outputs and the capture manager.
        .target(
            name: "CaptureKit",
            dependencies: ["CaptureKitCore", "CaptureKitMedia", "CaptureKitLibrary", "CFFmpeg", "CV4L2", "CALSA", "CPulse", "CZBar", "CZXing",
                           "CMotionKernels", "CYUV", "CSRT", "CPipeWire", "CSDBus", "CLibCamera"]
        ),
        // Live preview on top of a session: an SDL2 window and a web page (libmicrohttpd).
        // Applications that show a preview add `import CaptureKitPreview`.
        .target(name: "CaptureKitPreview", dependencies: ["CaptureKit", "CaptureKitMedia", "CSDL2", "CMicroHTTPD"]),
        // What both command-line tools share: the argument parser and option tables, the
        // console, exit statuses.
        .target(name: "CommandLineSupport", dependencies: ["CaptureKit"]),
        .executableTarget(name: "capture", dependencies: ["CaptureKit", "CaptureKitPreview", "CommandLineSupport"]),
        .executableTarget(name: "capture-bench", dependencies: ["CaptureKit", "CaptureKitMedia", "CaptureKitPreview", "CommandLineSupport"]),
        // The seed's CQCaptureManager flow end to end.
        .executableTarget(name: "CaptureManagerDemo", dependencies: ["CaptureKit"], path: "Examples/CaptureManagerDemo",
                          packageAccess: false),
        .testTarget(name: "CaptureKitTests", dependencies: ["CaptureKit", "CaptureKitMedia", "CaptureKitLibrary", "CaptureKitPreview", "CommandLineSupport"]),
        // Imports only `CaptureKit` and `CaptureKitPreview`, without @testable and outside the
        // package's `package` access (as an application would): proves no C type leaks into the
        // public API, and that what it uses is public.
        .testTarget(name: "PublicAPITests", dependencies: ["CaptureKit", "CaptureKitPreview"], packageAccess: false),
        // The article's CQCaptureManager ported onto the low-level API with only the renames in
        // Sources/CaptureKit/CaptureKit.docc/PortingFromAVFoundation.md, outside the package's `package` access.
        .testTarget(name: "CQCaptureManagerPortTests", dependencies: ["CaptureKit", "PortTestSupport"], packageAccess: false),
        // A capture service in the style of Apple's AVCam sample (an actor, async photo and movie
        // capture over delegates), ported the same way.
        .testTarget(name: "AVCamPortTests", dependencies: ["CaptureKit", "PortTestSupport"], packageAccess: false),
        // What the ported samples' tests share: running ffprobe and exiftool.
        .target(name: "PortTestSupport", path: "Tests/PortTestSupport"),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
