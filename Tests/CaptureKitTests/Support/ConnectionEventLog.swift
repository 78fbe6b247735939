@testable import CaptureKit

/// Records `CaptureDevice.connectionEvents()` into `events` as "+<uniqueID>" and
/// "-<uniqueID>", from now until the returned task is cancelled.
func recordConnectionEvents(into events: Recorder<String>) -> Task<Void, Never> {
    let stream = CaptureDevice.connectionEvents()
    return Task {
        for await event in stream {
            switch event {
            case .connected(let device): events.append("+\(device.uniqueID)")
            case .disconnected(let device): events.append("-\(device.uniqueID)")
            }
        }
    }
}
