import Glibc
import Synchronization

/// Memory a backend lends out — a V4L2 driver buffer, a decoder's frame — and takes back when
/// the last consumer lets go. `tag` says which block (the driver buffer's index). An object
/// rather than a closure, so lending a frame allocates nothing beyond its storage.
package protocol StorageLender: AnyObject, Sendable {
    /// The block lent with `tag` is no longer referenced.
    func takeBack(_ tag: Int)
}

/// A block of aligned memory owned by a pixel or audio buffer. When the last reference goes,
/// the block returns to the pool it came from (or is freed, or goes back to its lender), so
/// steady-state capture allocates no frame memory.
package final class MediaStorage: @unchecked Sendable {
    // Unchecked Sendable: memory written before it is published and only read after.
    package let bytes: UnsafeMutableRawPointer
    package let byteCount: Int
    private let release: Release

    package enum Release {
        case free
        case pool(StoragePool)
        case lent(any StorageLender, tag: Int)
    }

    /// Wraps memory `lender` owns; it takes the block back (by `tag`) when the storage is no
    /// longer referenced.
    package init(lentBy lender: any StorageLender, tag: Int, bytes: UnsafeMutableRawPointer, byteCount: Int) {
        self.bytes = bytes
        self.byteCount = byteCount
        release = .lent(lender, tag: tag)
    }

    fileprivate init(bytes: UnsafeMutableRawPointer, byteCount: Int, release: Release) {
        self.bytes = bytes
        self.byteCount = byteCount
        self.release = release
    }

    /// Whether the memory is a lender's (a driver's or a sound server's buffer), not CaptureKit's.
    package var isLent: Bool {
        if case .lent = release { true } else { false }
    }

    /// Allocates `byteCount` bytes aligned for SIMD code, or throws `.outOfMemory`.
    package static func allocate(byteCount: Int) throws(CaptureError) -> MediaStorage {
        MediaStorage(bytes: try alignedAllocate(byteCount), byteCount: byteCount, release: .free)
    }

    package static func alignedAllocate(_ byteCount: Int) throws(CaptureError) -> UnsafeMutableRawPointer {
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
        case .lent(let lender, let tag): lender.takeBack(tag)
        }
    }
}

/// Recycles equally sized blocks. Thread-safe; keeps at most `maximumIdle` blocks around.
package final class StoragePool: Sendable {
    package let blockSize: Int
    package let maximumIdle: Int
    // Unchecked Sendable: the pool's idle blocks, touched only under the pool's lock.
    private struct Idle: @unchecked Sendable { var blocks: [UnsafeMutableRawPointer] = [] }
    private let idle = Mutex(Idle())

    package init(blockSize: Int, maximumIdle: Int) {
        self.blockSize = blockSize
        self.maximumIdle = maximumIdle
    }

    /// A block from the pool, or a new one when the pool is empty.
    package func take() throws(CaptureError) -> MediaStorage {
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
