/// Where a provider tells of devices that come and go without discovery looking: the
/// connection hub, behind the filters of the providers that wrap this one. A wrapper that
/// leaves a backend out of discovery (the camera route, one camera one device) leaves it out of
/// connection events too, so no event names a device discovery does not list.
struct ConnectionReports: Sendable {
    private let hub: DeviceConnectionHub
    /// Whether the wrapping providers list `backend`.
    private let lists: @Sendable (any DeviceBackend) -> Bool

    /// Reports to `hub` of every backend.
    init(to hub: DeviceConnectionHub) {
        self.init(hub: hub, lists: { _ in true })
    }

    private init(hub: DeviceConnectionHub, lists: @escaping @Sendable (any DeviceBackend) -> Bool) {
        self.hub = hub
        self.lists = lists
    }

    /// These reports, for a provider whose wrapper lists only the backends `filter` keeps.
    func filtered(by filter: @escaping @Sendable (any DeviceBackend) -> Bool) -> ConnectionReports {
        ConnectionReports(hub: hub, lists: { [lists] backend in lists(backend) && filter(backend) })
    }

    /// Tells the hub that `backend`'s device came (when it is listed) or went (the hub knows
    /// whether it announced it).
    func post(_ change: DeviceConnectionHub.Change, _ backend: any DeviceBackend) {
        guard change == .disconnected || lists(backend) else { return }
        hub.post(change, backend)
    }
}
