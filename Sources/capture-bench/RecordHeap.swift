import Glibc

/// Gives the heap memory this process has freed back to the kernel before a `record-1080p` run.
///
/// glibc keeps freed blocks of its arenas mapped, so after a CaptureKit recording (hundreds of
/// megabytes of frames went through the heap) the process stays large. That would count twice:
/// in the next CaptureKit run's peak, which starts from the current size, and in a peer's, whose
/// `ru_maxrss` starts from this process's size at spawn.
enum RecordHeap {
    /// glibc's `malloc_trim`, which Swift's Glibc module does not import: looked up once.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        // nil is RTLD_DEFAULT: the symbol as the process already links it.
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()

    /// `malloc_trim(0)`; does nothing where the C library has none.
    static func trim() {
        _ = mallocTrim?(0)
    }
}
