internal import CPulse
import Dispatch

/// What the callbacks of one libpulse request collect. Written on the loop thread, read by the
/// requester after `done` is signalled (the semaphore orders the two).
final class PulseReply<Value>: @unchecked Sendable {
    // Unchecked Sendable: filled on the libpulse loop thread before the semaphore is signalled, read after.
    var values: [Value] = []
    private(set) var failed = false
    let done = DispatchSemaphore(value: 0)
    /// For requests nobody waits for (made from a server event on the loop thread): runs at the
    /// end instead, and the reply then gives up the reference its callback held.
    var onFinish: ((PulseReply<Value>) -> Void)?

    /// The request's last callback ran.
    func finish(failed: Bool) {
        self.failed = failed
        if let onFinish {
            onFinish(self)
            Unmanaged.passUnretained(self).release()
        } else {
            done.signal()
        }
    }
}

extension PulseReply where Value == PulseSourceInfo {
    /// The `pa_source_info_cb_t` of every source request: one call per source, then one with
    /// `eol` 1 (done) or negative (failed, e.g. no such source).
    static var sourceCallback: pa_source_info_cb_t {
        { _, info, eol, userdata in
            guard let userdata else { return }
            let reply = Unmanaged<PulseReply<PulseSourceInfo>>.fromOpaque(userdata).takeUnretainedValue()
            if eol != 0 {
                reply.finish(failed: eol < 0)
            } else if let info {
                reply.values.append(PulseSourceInfo(info.pointee))
            }
        }
    }
}
