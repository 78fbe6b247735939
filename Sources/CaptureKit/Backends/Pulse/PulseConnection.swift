internal import CPulse
import Dispatch
import Synchronization

/// One connection to the sound server (PulseAudio, or PipeWire's pulse server): libpulse's
/// asynchronous API on its own `pa_threaded_mainloop` thread. Every libpulse call on the context
/// or its streams runs under the main loop's lock (``locked(_:)``); callbacks run on the loop's
/// thread with the lock held.
///
/// Replies are awaited on a semaphore with a timeout, not with `pa_threaded_mainloop_wait`, so a
/// server that stops answering makes discovery fail after the timeout instead of hanging.
final class PulseConnection: @unchecked Sendable {
    // Unchecked Sendable: libpulse objects used only under the threaded main loop's lock.
    /// What the server tells its subscribers, already reduced to what discovery needs.
    enum Change: Sendable {
        case sourceAdded(PulseSourceInfo)
        case sourceRemoved(index: UInt32)
        case serverChanged
        /// The connection is dead (the server went away); nothing more will arrive.
        case connectionLost
    }

    /// The address asked for (`nil`: libpulse's default: `$PULSE_SERVER`, then the user's
    /// runtime directory).
    let server: String?
    let mainloop: OpaquePointer
    let context: OpaquePointer
    private let alive = Atomic<Bool>(false)
    private let readiness = DispatchSemaphore(value: 0)
    private let observer = Mutex<(@Sendable (Change) -> Void)?>(nil)

    /// How long a request to the server may take before it counts as unreachable.
    static let replyTimeout: Duration = .seconds(3)

    /// Connects to the server; `.deviceNotFound` when none answers within `timeout`. Never
    /// autospawns a daemon (`PA_CONTEXT_NOAUTOSPAWN`).
    static func connect(server: String? = nil, timeout: Duration = replyTimeout) throws(CaptureError) -> PulseConnection {
        guard let mainloop = pa_threaded_mainloop_new() else {
            throw CaptureError(.outOfMemory, "cannot create the sound server's main loop", operation: "pa_threaded_mainloop_new")
        }
        guard let context = pa_context_new(pa_threaded_mainloop_get_api(mainloop), "CaptureKit") else {
            pa_threaded_mainloop_free(mainloop)
            throw CaptureError(.outOfMemory, "cannot create a sound server context", operation: "pa_context_new")
        }
        let connection = PulseConnection(server: server, mainloop: mainloop, context: context)
        try connection.open(timeout: timeout)
        return connection
    }

    private init(server: String?, mainloop: OpaquePointer, context: OpaquePointer) {
        self.server = server
        self.mainloop = mainloop
        self.context = context
    }

    private func open(timeout: Duration) throws(CaptureError) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        pa_context_set_state_callback(context, { _, userdata in
            guard let userdata else { return }
            Unmanaged<PulseConnection>.fromOpaque(userdata).takeUnretainedValue().contextStateChanged()
        }, me)
        pa_context_set_subscribe_callback(context, { _, event, index, userdata in
            guard let userdata else { return }
            Unmanaged<PulseConnection>.fromOpaque(userdata).takeUnretainedValue().serverEvent(event, index: index)
        }, me)
        guard pa_threaded_mainloop_start(mainloop) >= 0 else {
            throw CaptureError(.systemCallFailed, "cannot start the sound server's main loop thread", operation: "pa_threaded_mainloop_start")
        }
        let started = locked { pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) }
        guard started >= 0 else {
            throw unreachable("pa_context_connect")
        }
        guard readiness.wait(timeout: .now() + timeout.dispatchInterval) == .success, alive.load(ordering: .acquiring) else {
            throw unreachable("pa_context_connect")
        }
        // Sources come and go (hot-plug), the default source moves (server events).
        let subscribed = locked { () -> OpaquePointer? in
            let mask = pa_subscription_mask_t(rawValue: PA_SUBSCRIPTION_MASK_SOURCE.rawValue | PA_SUBSCRIPTION_MASK_SERVER.rawValue)
            return pa_context_subscribe(context, mask, nil, nil)
        }
        if let subscribed { locked { pa_operation_unref(subscribed) } }
    }

    private func unreachable(_ operation: String) -> CaptureError {
        let code = locked { pa_context_errno(context) }
        return CaptureError(.deviceNotFound, "no sound server answers at \(server ?? "the default address"): \(String(cString: pa_strerror(code)))",
                            operation: operation)
    }

    deinit {
        let resources = LoopResources(mainloop: mainloop, context: context)
        if isLoopThread {
            // Released inside one of its own callbacks: the loop thread cannot join itself.
            // Nothing may call back into this object any more; another thread closes the loop
            // once this callback has returned.
            pa_context_set_state_callback(context, nil, nil)
            pa_context_set_subscribe_callback(context, nil, nil)
            DispatchQueue.global().async { resources.close() }
        } else {
            resources.close()
        }
    }

    /// The loop and context, closed together.
    private struct LoopResources: @unchecked Sendable {
        // Unchecked Sendable: libpulse main loop and context pointers, used under the loop's lock.
        let mainloop: OpaquePointer
        let context: OpaquePointer

        func close() {
            // Stopping joins the loop thread, so no callback runs on the freed context after it.
            pa_threaded_mainloop_stop(mainloop)
            pa_context_set_state_callback(context, nil, nil)
            pa_context_set_subscribe_callback(context, nil, nil)
            pa_context_disconnect(context)
            pa_context_unref(context)
            pa_threaded_mainloop_free(mainloop)
        }
    }

    /// Whether the server is still connected.
    var isAlive: Bool { alive.load(ordering: .acquiring) }

    /// Receives the server's changes on the loop thread (one observer: the provider).
    func observe(_ body: (@Sendable (Change) -> Void)?) {
        observer.withLock { $0 = body }
    }

    /// Runs `body` holding the main loop's lock (or directly when already on the loop's thread,
    /// where the lock is held).
    func locked<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let inLoop = pa_threaded_mainloop_in_thread(mainloop) != 0
        if !inLoop { pa_threaded_mainloop_lock(mainloop) }
        defer { if !inLoop { pa_threaded_mainloop_unlock(mainloop) } }
        return try body()
    }

    /// Whether the caller runs on the loop's thread (where waiting for a reply would deadlock).
    var isLoopThread: Bool { pa_threaded_mainloop_in_thread(mainloop) != 0 }

    // MARK: Callbacks (loop thread)

    private func contextStateChanged() {
        switch pa_context_get_state(context) {
        case PA_CONTEXT_READY:
            alive.store(true, ordering: .releasing)
            readiness.signal()
        case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
            let wasAlive = alive.exchange(false, ordering: .acquiringAndReleasing)
            readiness.signal()
            if wasAlive { observer.withLock { $0 }?(.connectionLost) }
        default:
            break
        }
    }

    private func serverEvent(_ event: pa_subscription_event_type_t, index: UInt32) {
        guard let observer = observer.withLock({ $0 }) else { return }
        let facility = ck_pa_event_facility(event)
        let kind = ck_pa_event_kind(event)
        if facility == PA_SUBSCRIPTION_EVENT_SERVER {
            observer(.serverChanged)
        } else if facility == PA_SUBSCRIPTION_EVENT_SOURCE, kind == PA_SUBSCRIPTION_EVENT_REMOVE {
            observer(.sourceRemoved(index: index))
        } else if facility == PA_SUBSCRIPTION_EVENT_SOURCE, kind == PA_SUBSCRIPTION_EVENT_NEW {
            // The event carries only the index: ask for the rest, answer on this thread later.
            let reply = PulseReply<PulseSourceInfo>()
            reply.onFinish = { [observer] reply in
                for info in reply.values { observer(.sourceAdded(info)) }
            }
            let operation = pa_context_get_source_info_by_index(context, index, PulseReply<PulseSourceInfo>.sourceCallback,
                                                                Unmanaged.passRetained(reply).toOpaque())
            if let operation { pa_operation_unref(operation) } else { Unmanaged.passUnretained(reply).release() }
        }
    }

    // MARK: Queries

    /// The server's name and default source (`pa_context_get_server_info`).
    func serverInfo(timeout: Duration = replyTimeout) throws(CaptureError) -> PulseServerInfo {
        let values = try request("pa_context_get_server_info", timeout: timeout) { (reply: PulseReply<PulseServerInfo>, userdata) in
            pa_context_get_server_info(context, { _, info, userdata in
                guard let userdata else { return }
                let reply = Unmanaged<PulseReply<PulseServerInfo>>.fromOpaque(userdata).takeUnretainedValue()
                if let info { reply.values.append(PulseServerInfo(info.pointee)) }
                reply.finish(failed: info == nil)
            }, userdata)
        }
        guard let info = values.first else { throw CaptureError(.deviceNotFound, "the sound server sent no server information", operation: "pa_context_get_server_info") }
        return info
    }

    /// Every source, monitors included (`pa_context_get_source_info_list`).
    func sources(timeout: Duration = replyTimeout) throws(CaptureError) -> [PulseSourceInfo] {
        try request("pa_context_get_source_info_list", timeout: timeout) { (_: PulseReply<PulseSourceInfo>, userdata) in
            pa_context_get_source_info_list(context, PulseReply<PulseSourceInfo>.sourceCallback, userdata)
        }
    }

    /// The source called `name`, or nil when the server has none (`pa_context_get_source_info_by_name`).
    func source(named name: String, timeout: Duration = replyTimeout) throws(CaptureError) -> PulseSourceInfo? {
        do throws(CaptureError) {
            return try request("pa_context_get_source_info_by_name", timeout: timeout) { (_: PulseReply<PulseSourceInfo>, userdata) in
                pa_context_get_source_info_by_name(context, name, PulseReply<PulseSourceInfo>.sourceCallback, userdata)
            }.first
        } catch {
            // The server answers "no such entity" as a failed request; only that means "absent".
            if error.code == .systemCallFailed, isAlive { return nil }
            throw error
        }
    }

    /// Starts a request under the lock, waits for its last callback (or the timeout) without
    /// holding the lock, and returns what the callbacks collected.
    private func request<Value>(_ operationName: String, timeout: Duration,
                                _ start: (PulseReply<Value>, UnsafeMutableRawPointer) -> OpaquePointer?) throws(CaptureError) -> [Value] {
        guard !isLoopThread else { throw CaptureError(.internalError, "\(operationName) cannot wait on the sound server's own thread") }
        guard isAlive else { throw CaptureError(.deviceNotFound, "the sound server connection is closed", operation: operationName) }
        let reply = PulseReply<Value>()
        let userdata = Unmanaged.passRetained(reply).toOpaque()
        guard let operation = locked({ start(reply, userdata) }) else {
            Unmanaged<PulseReply<Value>>.fromOpaque(userdata).release()
            throw unreachable(operationName)
        }
        let answered = reply.done.wait(timeout: .now() + timeout.dispatchInterval) == .success
        locked {
            if !answered { pa_operation_cancel(operation) }
            pa_operation_unref(operation)
        }
        // Finished or cancelled, the operation calls nothing more: the reference can go.
        Unmanaged<PulseReply<Value>>.fromOpaque(userdata).release()
        if !answered {
            throw CaptureError(.deviceNotFound, "the sound server did not answer within \(timeout)", operation: operationName)
        }
        if reply.failed {
            guard isAlive else { throw CaptureError(.deviceNotFound, "the sound server went away", operation: operationName) }
            let code = locked { pa_context_errno(context) }
            throw CaptureError(.systemCallFailed, "the sound server refused \(operationName): \(String(cString: pa_strerror(code)))", operation: operationName)
        }
        return reply.values
    }
}
