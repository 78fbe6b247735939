import Synchronization

import Glibc


/// A block of aligned memory owned by a pixel or audio buffer. When the last reference goes,
/// the block returns to the pool it came from (or is freed), so steady-state capture allocates
/// no frame memory. Device backends can wrap memory they own (a V4L2 mmap buffer) and get a
/// callback when the last consumer lets go.
final class MediaStorage: @unchecked Sendable {
    // Unchecked Sendable: memory written before it is published and only read after.
    let bytes: UnsafeMutableRawPointer
    let byteCount: Int
    private let release: Release

    enum Release {
        case free
        case pool(StoragePool)
        case custom(@Sendable (UnsafeMutableRawPointer) -> Void)
    }

    /// Wraps memory the caller owns; `release` runs when the storage is no longer referenced.
    init(wrapping bytes: UnsafeMutableRawPointer, byteCount: Int, release: @escaping @Sendable (UnsafeMutableRawPointer) -> Void) {
        self.bytes = bytes
        self.byteCount = byteCount
        self.release = .custom(release)
    }

    fileprivate init(bytes: UnsafeMutableRawPointer, byteCount: Int, release: Release) {
        self.bytes = bytes
        self.byteCount = byteCount
        self.release = release
    }

    /// Allocates `byteCount` bytes aligned for SIMD code, or throws `.outOfMemory`.
    static func allocate(byteCount: Int) throws(CaptureError) -> MediaStorage {
        MediaStorage(bytes: try alignedAllocate(byteCount), byteCount: byteCount, release: .free)
    }

    static func alignedAllocate(_ byteCount: Int) throws(CaptureError) -> UnsafeMutableRawPointer {
        var pointer: UnsafeMutableRawPointer?
        guard posix_memalign(&pointer, 64, max(byteCount, 1)) == 0, let pointer else {
            throw CaptureError(.outOfMemory, "cannot allocate \(byteCount) bytes", operation: "posix_memalign")
        }
        return pointer
    }

    deinit {
        switch release {
        case .free: Glibc.free(bytes)
        case .pool(let pool): pool.recycle(bytes)
        case .custom(let body): body(bytes)
        }
    }
}

/// Recycles equally sized blocks. Thread-safe; keeps at most `maximumIdle` blocks around.
final class StoragePool: Sendable {
    let blockSize: Int
    let maximumIdle: Int
    // Unchecked Sendable: the pool's idle blocks, touched only under the pool's lock.
    private struct Idle: @unchecked Sendable { var blocks: [UnsafeMutableRawPointer] = [] }
    private let idle = Mutex(Idle())

    init(blockSize: Int, maximumIdle: Int) {
        self.blockSize = blockSize
        self.maximumIdle = maximumIdle
    }

    /// A block from the pool, or a new one when the pool is empty.
    func take() throws(CaptureError) -> MediaStorage {
        let bytes: UnsafeMutableRawPointer
        if let reused = idle.withLock({ $0.blocks.popLast() }) {
            bytes = reused
        } else {
            bytes = try MediaStorage.alignedAllocate(blockSize)
        }
        return MediaStorage(bytes: bytes, byteCount: blockSize, release: .pool(self))
    }

    fileprivate func recycle(_ bytes: UnsafeMutableRawPointer) {
        let kept = idle.withLock { state -> Bool in
            guard state.blocks.count < maximumIdle else { return false }
            state.blocks.append(bytes)
            return true
        }
        if !kept { Glibc.free(bytes) }
    }

    deinit {
        idle.withLock { state in
            for block in state.blocks { Glibc.free(block) }
            state.blocks.removeAll()
        }
    }
}
