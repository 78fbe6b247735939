import CaptureKitCore

/// Opens a C library that CaptureKit loads on first use rather than at process start (FFmpeg,
/// libheif, ZBar, SDL2, libmicrohttpd: see `CLibraryLoader.h`), through its shim's `ck_*_load`.
/// Entry points call it before the library's first function, so that a library that is not
/// installed is a typed error there rather than the end of the process at that first call.
/// Throws `.notSupported` naming the sonames tried and the package to install.
package func loadSharedLibrary(_ name: String, _ load: (UnsafeMutablePointer<CChar>?, Int) -> Int32) throws(CaptureError) {
    var reason = ""
    let status = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 640) { buffer -> Int32 in
        let status = load(buffer.baseAddress, buffer.count)
        if status != 0 { reason = String(cString: buffer.baseAddress!) }
        return status
    }
    guard status == 0 else {
        throw CaptureError(.notSupported, "\(name) cannot be loaded: \(reason)", operation: "dlopen")
    }
}
