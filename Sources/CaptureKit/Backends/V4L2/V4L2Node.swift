/// A capture node found by discovery, with what sysfs and /dev/v4l/by-id say about its device.
struct V4L2Node: Sendable, Equatable {
    var path: String
    var capability: V4L2Capability
    var bufferType: V4L2BufferType
    var sysfs: V4L2SysfsInfo
    /// The /dev/v4l/by-id name of the node, when udev made one (USB devices).
    var byIDName: String?

    /// Nodes with the same key belong to one physical device.
    var groupKey: String { "\(capability.busInfo)|\(capability.card)" }

    /// Stable across reboots and re-plugs: the by-id name (vendor, product, serial, interface)
    /// when there is one, else the bus position and the card name.
    var uniqueID: String {
        if let byIDName { return "v4l2:by-id:\(byIDName)" }
        return "v4l2:\(capability.busInfo):\(capability.card)"
    }

    var descriptor: DeviceDescriptor {
        let isUSB = sysfs.vendorProduct != nil || capability.busInfo.hasPrefix("usb-")
        let deviceType: CaptureDevice.DeviceType
        if isUSB {
            deviceType = sysfs.isFixed ? .builtInWideAngleCamera : .external
        } else {
            deviceType = capability.busInfo.hasPrefix("PCI:") || capability.busInfo.hasPrefix("pci") ? .external : .builtInWideAngleCamera
        }
        let position: CaptureDevice.Position
        switch sysfs.panel {
        case "front": position = .front
        case "back": position = .back
        default: position = .unspecified
        }
        return DeviceDescriptor(uniqueID: uniqueID, localizedName: capability.card.isEmpty ? path : capability.card,
                                modelID: sysfs.vendorProduct ?? capability.driver,
                                manufacturer: sysfs.manufacturer ?? capability.driver,
                                deviceType: deviceType, position: position, mediaType: .video, bus: sysfs.bus)
    }
}
