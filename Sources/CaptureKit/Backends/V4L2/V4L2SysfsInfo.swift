import Foundation

/// What sysfs knows about the hardware behind `/dev/videoN`: the USB ids, strings and bus of
/// the nearest USB device above it, whether its port is built in, and the firmware's panel.
struct V4L2SysfsInfo: Sendable, Equatable {
    /// "vvvv:pppp" for USB devices.
    var vendorProduct: String?
    /// The USB manufacturer string.
    var manufacturer: String?
    /// Whether the USB port is marked "fixed" (a laptop's internal camera).
    var isFixed = false
    /// `physical_location/panel` ("front", "back", …) when the firmware gives it.
    var panel: String?
    /// The USB bus (`busnum`) and link speed of the USB device.
    var bus: CaptureDevice.Bus?

    /// Reads `<sysRoot>/class/video4linux/<node>/device` and its ancestors.
    static func read(node: String, sysRoot: String = "/sys") -> V4L2SysfsInfo {
        var info = V4L2SysfsInfo()
        let link = "\(sysRoot)/class/video4linux/\(node)/device"
        var directory = URL(fileURLWithPath: link).resolvingSymlinksInPath().path
        func value(_ name: String) -> String? {
            (try? String(contentsOfFile: "\(directory)/\(name)", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // Walk up to the USB device (the node's parent is a USB interface) or the bus root.
        for _ in 0..<8 {
            if info.panel == nil { info.panel = value("physical_location/panel") }
            if let vendor = value("idVendor"), let product = value("idProduct") {
                info.vendorProduct = "\(vendor):\(product)"
                info.manufacturer = value("manufacturer")
                info.isFixed = value("removable") == "fixed"
                if let number = value("busnum"), let speed = value("speed").flatMap(CaptureDevice.Bus.Speed.init(sysfsMegabits:)) {
                    info.bus = CaptureDevice.Bus(id: "usb\(number)", speed: speed)
                }
                break
            }
            let parent = (directory as NSString).deletingLastPathComponent
            guard parent != directory, parent.hasPrefix("\(sysRoot)/") else { break }
            directory = parent
        }
        return info
    }
}
