import Dispatch
import Foundation
import Synchronization
import Testing
@testable import CaptureKit

// Helpers shared by the suites: thread-safe recorders with bounded async waits (no sleeping as
// synchronisation), sample-buffer and session delegates that record what they get, and unique
// virtual devices.

/// Collects values appended from any thread and lets a test wait, with a timeout, until the
/// values satisfy a condition. Waiting suspends (never blocks a cooperative thread).
final class Recorder<Element: Sendable>: Sendable {
    private struct Waiter {
        var id: Int
        var isSatisfied: @Sendable ([Element]) -> Bool
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var items: [Element] = []
        var waiters: [Waiter] = []
        var expired: Set<Int> = []
        var nextID = 0
    }

    private let state = Mutex(State())

    init() {}

    func append(_ item: Element) {
        let ready = state.withLock { state -> [Waiter] in
            state.items.append(item)
            let ready = state.waiters.filter { $0.isSatisfied(state.items) }
            state.waiters.removeAll { waiter in ready.contains { $0.id == waiter.id } }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    /// Everything recorded so far, in order.
    var items: [Element] { state.withLock { $0.items } }

    var count: Int { state.withLock { $0.items.count } }

    /// Suspends until `condition` holds for the recorded items or `timeout` has passed; returns
    /// whether the condition holds. The condition runs under a lock: keep it cheap.
    func wait(timeout: Duration = .seconds(10), until condition: @escaping @Sendable ([Element]) -> Bool) async -> Bool {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.expire(id)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let immediate = state.withLock { state -> Bool? in
                if condition(state.items) { return true }
                if state.expired.remove(id) != nil { return false }
                state.waiters.append(Waiter(id: id, isSatisfied: condition, continuation: continuation))
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
    }

    /// Waits until at least `count` items have been recorded.
    func wait(forCount count: Int, timeout: Duration = .seconds(10)) async -> Bool {
        await wait(timeout: timeout) { $0.count >= count }
    }

    private func expire(_ id: Int) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                state.expired.insert(id)
                return nil
            }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(returning: false)
    }
}

/// A sample as a delegate received it, with the monotonic time it arrived.
struct ReceivedSample: Sendable {
    var sample: SampleBuffer
    /// `CLOCK_MONOTONIC` nanoseconds when the delegate was called.
    var arrival: Int64

    var sequenceNumber: UInt64 { sample.sequenceNumber }
    var width: Int { sample.pixelBuffer?.width ?? 0 }
    var height: Int { sample.pixelBuffer?.height ?? 0 }
}

/// A sample-buffer delegate that records every sample and drop; with `delay` it is a slow
/// consumer that sleeps inside its own callback (the behaviour under test, not synchronisation).
final class SampleRecorder: SampleBufferDelegate {
    let samples = Recorder<ReceivedSample>()
    let drops = Recorder<DroppedFrame>()
    /// Samples and drops in the order the delegate heard them (one queue, so one order): what
    /// ``accounting`` checks.
    let log = Recorder<DeliveryEvent>()
    let queue: DispatchQueue
    private let delay: Duration?

    init(label: String = "tests.sampleRecorder", delay: Duration? = nil) {
        queue = DispatchQueue(label: label)
        self.delay = delay
    }

    func captureOutput(_ output: CaptureOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        let received = ReceivedSample(sample: sampleBuffer, arrival: MonotonicClock.nanoseconds())
        log.append(.sample(received))
        samples.append(received)
        if let delay {
            let (seconds, attoseconds) = delay.components
            Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
        }
    }

    func captureOutput(_ output: CaptureOutput, didDrop droppedFrame: DroppedFrame, from connection: CaptureConnection) {
        log.append(.drop(droppedFrame))
        drops.append(droppedFrame)
    }

    /// How every sequence number up to the last delivered sample was accounted for.
    var accounting: FrameAccounting { FrameAccounting(log.items) }

    /// Makes this the delegate of `output`, on this recorder's queue.
    func attach(to output: SampleBufferOutput) {
        output.setSampleBufferDelegate(self, queue: queue)
    }
}

/// A session event reduced to something comparable.
enum EventKind: Equatable, Sendable, CustomStringConvertible {
    case didStartRunning
    case didStopRunning
    case runtimeError(CaptureError.Code)
    case wasInterrupted(CaptureSession.InterruptionReason)
    case interruptionEnded
    case deviceReachedEnd(String)
    case resumeFailed(String, CaptureError.Code)

    init(_ event: CaptureSession.Event) {
        switch event {
        case .didStartRunning: self = .didStartRunning
        case .didStopRunning: self = .didStopRunning
        case .runtimeError(let error): self = .runtimeError(error.code)
        case .wasInterrupted(let reason): self = .wasInterrupted(reason)
        case .interruptionEnded: self = .interruptionEnded
        case .deviceReachedEnd(let deviceID): self = .deviceReachedEnd(deviceID)
        case .resumeFailed(let deviceID, let error): self = .resumeFailed(deviceID, error.code)
        }
    }

    var description: String {
        switch self {
        case .didStartRunning: return "didStartRunning"
        case .didStopRunning: return "didStopRunning"
        case .runtimeError(let code): return "runtimeError(\(code))"
        case .wasInterrupted(let reason): return "wasInterrupted(\(reason))"
        case .interruptionEnded: return "interruptionEnded"
        case .deviceReachedEnd(let deviceID): return "deviceReachedEnd(\(deviceID))"
        case .resumeFailed(let deviceID, let code): return "resumeFailed(\(deviceID), \(code))"
        }
    }
}

/// Records a session's `events` stream from the moment it is made.
final class EventRecorder: Sendable {
    let events = Recorder<EventKind>()
    private let task: Task<Void, Never>

    init(_ session: CaptureSession) {
        let stream = session.events // registered now, before anything happens
        let events = events
        task = Task {
            for await event in stream { events.append(EventKind(event)) }
        }
    }

    func wait(for kind: EventKind, timeout: Duration = .seconds(10)) async -> Bool {
        await events.wait(timeout: timeout) { $0.contains(kind) }
    }

    func cancel() { task.cancel() }

    deinit { task.cancel() }
}

/// A `CaptureSessionDelegate` recording the calls it gets and the queue they came on.
final class SessionDelegateRecorder: CaptureSessionDelegate {
    let events = Recorder<EventKind>()
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<String>()
    private let offQueueCalls = Atomic<Int>(0)

    /// Whether every call arrived on `queue`.
    var allCallsOnQueue: Bool { offQueueCalls.load(ordering: .relaxed) == 0 }

    init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: label)
    }

    private func record(_ kind: EventKind) {
        if DispatchQueue.getSpecific(key: key) == nil { offQueueCalls.add(1, ordering: .relaxed) }
        events.append(kind)
    }

    func sessionDidStartRunning(_ session: CaptureSession) { record(.didStartRunning) }
    func sessionDidStopRunning(_ session: CaptureSession) { record(.didStopRunning) }
    func session(_ session: CaptureSession, didFailWith error: CaptureError) { record(.runtimeError(error.code)) }
    func session(_ session: CaptureSession, wasInterruptedBecause reason: CaptureSession.InterruptionReason) {
        record(.wasInterrupted(reason))
    }
    func sessionInterruptionEnded(_ session: CaptureSession) { record(.interruptionEnded) }
}

/// A unique device name, so parallel tests never share a virtual device.
func uniqueDeviceName(_ label: String) -> String {
    "Test \(label) \(UUID().uuidString.prefix(8))"
}

/// A virtual camera of its own for one test (320x240 by default, to keep debug builds fast).
/// Remove it with `CaptureDevice.removeVirtualDevice(_:)` at the end of the test.
func makeTestCamera(_ label: String, configure: (inout VirtualCameraConfiguration) -> Void = { _ in }) throws -> CaptureDevice {
    var configuration = VirtualCameraConfiguration(name: uniqueDeviceName(label))
    configuration.sizes = [.init(width: 320, height: 240)]
    configure(&configuration)
    return try CaptureDevice.makeVirtualCamera(configuration)
}

/// A session with `camera` as its input, `outputs` added, `preset` set, committed (not running).
func makeSession(camera: CaptureDevice, preset: CaptureSession.Preset = .high, outputs: [CaptureOutput]) throws -> CaptureSession {
    let session = CaptureSession()
    session.beginConfiguration()
    try session.setSessionPreset(preset)
    try session.addInput(CaptureDeviceInput(device: camera))
    for output in outputs { try session.addOutput(output) }
    try session.commitConfiguration()
    return session
}

/// One frame duration at `fps`.
func frameDuration(fps: Int32) -> MediaTime { MediaTime(value: 1, timescale: fps) }
