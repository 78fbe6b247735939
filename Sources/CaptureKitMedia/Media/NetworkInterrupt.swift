import CaptureKitCore
package import CFFmpeg
import Glibc
import Synchronization

/// What FFmpeg's blocking network calls poll (`AVIOInterruptCB`, every 100 ms or so) to learn
/// that they must give up: their owner is stopping, or the call has run past its deadline — a
/// server that accepts the connection and then stops reading (or sending) must not hold a
/// publisher or a network camera for the minutes TCP takes to notice.
package final class NetworkInterrupt: Sendable {
    /// The longest a connection attempt may take.
    package static let connectTimeout = MediaTime(value: 5, timescale: 1)
    /// The longest one write may block.
    package static let stallTimeout = MediaTime(value: 5, timescale: 1)

    package init() {}

    private let stopping = Atomic<Bool>(false)
    /// CLOCK_MONOTONIC nanoseconds; 0 for none.
    private let deadline = Atomic<Int64>(0)
    private let expired = Atomic<Bool>(false)

    /// The callback to hand FFmpeg; valid while this object lives.
    package var callback: AVIOInterruptCB {
        AVIOInterruptCB(callback: { opaque in
            guard let opaque else { return 0 }
            return Unmanaged<NetworkInterrupt>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt() ? 1 : 0
        }, opaque: Unmanaged.passUnretained(self).toOpaque())
    }

    /// Ends every blocking call from now on.
    package func stop() { stopping.store(true, ordering: .releasing) }

    /// Whether ``stop()`` was called.
    package var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Starts a deadline `timeout` from now for the next blocking call (nil: none).
    package func arm(_ timeout: MediaTime?) {
        expired.store(false, ordering: .releasing)
        deadline.store(timeout.map { Self.now() + Int64($0.seconds * 1e9) } ?? 0, ordering: .releasing)
    }

    /// Whether the last call ended because its deadline passed.
    package var timedOut: Bool { expired.load(ordering: .acquiring) }

    private func shouldInterrupt() -> Bool {
        if isStopping { return true }
        let limit = deadline.load(ordering: .acquiring)
        guard limit != 0, Self.now() > limit else { return false }
        expired.store(true, ordering: .releasing)
        return true
    }

    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}

extension NetworkInterrupt {
    /// The error for a failed network call: the system's reason where FFmpeg passes one on
    /// (refused, reset, broken pipe), else the line FFmpeg logged (the server's own words, a
    /// host that does not resolve), the URL redacted; a server that asked for credentials it
    /// did not get (HTTP or RTSP 401, 403) is `.notAuthorized`.
    package func error(_ result: Int32, reason: String?, doing what: String, code: CaptureError.Code,
                       timeout: MediaTime = NetworkInterrupt.stallTimeout) -> CaptureError {
        let errnoValue = -result > 0 && -result < 4096 ? -result : nil
        let why: String
        if timedOut {
            why = "no answer within \(timeout.seconds) s"
        } else if let errnoValue, errnoValue != EIO {
            why = FFmpeg.message(result)
        } else {
            why = reason ?? FFmpeg.message(result)
        }
        let refusedCredentials = result == FFmpeg.httpUnauthorized || result == FFmpeg.httpForbidden
            || (reason.map { $0.contains("401 Unauthorized") || $0.contains("403 Forbidden") } ?? false)
        let full = code == .fileError && [ENOSPC, EDQUOT, EFBIG].contains(errnoValue ?? 0)
        let effective: CaptureError.Code = full ? .diskFull : refusedCredentials ? .notAuthorized : code
        return CaptureError(effective, CaptureLog.redacted("\(what): \(why)"), errno: errnoValue == EIO ? nil : errnoValue)
    }
}

