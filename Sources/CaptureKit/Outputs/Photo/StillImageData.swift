import Foundation
import Synchronization

/// The JPEG bytes of the sample buffers ``CaptureStillImageOutput`` delivered, for as long as
/// each buffer lives: a `CMSampleBuffer` of a still carries its JPEG, and `SampleBuffer` has no
/// slot for encoded data, so it travels beside it, keyed by identity and checked by a weak
/// reference (an identifier reused by a later object never finds stale bytes).
enum StillImageData {
    private struct Entry: @unchecked Sendable {
        weak var buffer: SampleBuffer?
        var data: Data
    }

    private static let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    static func attach(_ data: Data, to buffer: SampleBuffer) {
        entries.withLock { entries in
            // Buffers that have gone are dropped whenever a new one arrives, so at most the
            // stills still alive (and those freed since the last capture) are kept.
            entries = entries.filter { $0.value.buffer != nil }
            entries[ObjectIdentifier(buffer)] = Entry(buffer: buffer, data: data)
        }
    }

    static func data(for buffer: SampleBuffer) -> Data? {
        entries.withLock { entries in
            guard let entry = entries[ObjectIdentifier(buffer)], entry.buffer === buffer else { return nil }
            return entry.data
        }
    }
}
