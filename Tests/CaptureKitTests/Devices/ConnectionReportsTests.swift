import Testing
@testable import CaptureKit

/// What a provider posts reaches connection events only for the backends the providers
/// wrapping it list (the libcamera side of one camera one device, in the VM:
/// LibCameraUVCIntegrationTests).
@Suite struct ConnectionReportsTests {
    @Test func aBackendTheWrappersLeaveOutIsNeverAnnounced() async throws {
        let hub = DeviceConnectionHub(registry: DeviceRegistry(providers: []), watch: { _ in nil }, invalidate: {}) { [:] }
        let events = Recorder<String>()
        let listener = recordConnectionEvents(of: hub.subscribe(), into: events)
        defer { listener.cancel() }
        let listed = try VirtualCameraBackend(configuration: VirtualCameraConfiguration(name: "Reports Listed"))
        let left = try VirtualCameraBackend(configuration: VirtualCameraConfiguration(name: "Reports Left Out"))
        let reports = ConnectionReports(to: hub).filtered { $0 !== left }.filtered { _ in true }

        reports.post(.connected, left)
        reports.post(.connected, listed)
        #expect(await events.wait { $0.contains("+reports-listed") })
        // Gone: the hub tells only of what it announced.
        reports.post(.disconnected, left)
        reports.post(.disconnected, listed)
        #expect(await events.wait { $0.contains("-reports-listed") })
        #expect(events.items == ["+reports-listed", "-reports-listed"])

        // A filter added by another wrapper leaves out what it does not list, too.
        ConnectionReports(to: hub).filtered { _ in true }.filtered { $0 !== listed }.post(.connected, listed)
        reports.post(.connected, listed)
        #expect(await events.wait { $0.count == 3 })
        #expect(events.items == ["+reports-listed", "-reports-listed", "+reports-listed"])
    }
}
