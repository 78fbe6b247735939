@testable import CaptureKit

/// Records `stream` (by default `CaptureDevice.connectionEvents()`) into `events` as
/// "+<uniqueID>" and "-<uniqueID>", from now until the returned task is cancelled.
func recordConnectionEvents(of stream: AsyncStream<CaptureDevice.ConnectionEvent> = CaptureDevice.connectionEvents(),
                            into events: Recorder<String>) -> Task<Void, Never> {
    Task {
        for await event in stream {
            switch event {
            case .connected(let device): events.append("+\(device.uniqueID)")
            case .disconnected(let device): events.append("-\(device.uniqueID)")
            }
        }
    }
}
