import Foundation

extension CaptureDevice {
    /// A device appeared (`AVCaptureDevice.wasConnectedNotification`); the object is the device.
    /// The same events as ``connectionEvents()``: the first use of this name starts listening
    /// to them for the rest of the process (a watch of `/dev` and the sound server's events).
    public static let wasConnectedNotification: Notification.Name = {
        ConnectionNotifications.start()
        return Notification.Name("CaptureDeviceWasConnected")
    }()

    /// A device went away (`AVCaptureDevice.wasDisconnectedNotification`); the object is the
    /// device. Its first use starts listening, as ``wasConnectedNotification``'s does.
    public static let wasDisconnectedNotification: Notification.Name = {
        ConnectionNotifications.start()
        return Notification.Name("CaptureDeviceWasDisconnected")
    }()
}

/// Posts ``CaptureDevice/connectionEvents()`` as notifications, once started.
private enum ConnectionNotifications {
    private static let listener: Task<Void, Never> = {
        let events = CaptureDevice.connectionEvents()
        return Task.detached {
            for await event in events {
                switch event {
                case .connected(let device): NotificationCenter.default.post(name: CaptureDevice.wasConnectedNotification, object: device)
                case .disconnected(let device): NotificationCenter.default.post(name: CaptureDevice.wasDisconnectedNotification, object: device)
                }
            }
        }
    }()

    static func start() { _ = listener }
}
