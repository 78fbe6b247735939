extension CaptureDevice {
    /// The bus a camera is attached by, as far as its bandwidth goes: cameras on one bus share
    /// what it carries, which is why two USB 2 webcams on one port cannot both stream
    /// uncompressed 1080p. Read from sysfs for V4L2 cameras (the USB device's `busnum` and
    /// `speed`); nil for cameras on no shared bus (virtual, file, network, platform cameras).
    public struct Bus: Sendable, Hashable, CustomStringConvertible {
        /// The USB link speeds, with what one camera's isochronous stream may use of them.
        public enum Speed: Sendable, Hashable {
            /// USB 1.1 full speed (12 Mbit/s).
            case usbFull
            /// USB 2 high speed (480 Mbit/s).
            case usbHigh
            /// USB 3 SuperSpeed (5 Gbit/s) or faster.
            case usbSuper

            /// What the isochronous transfers of the whole bus may carry, in bytes per second:
            /// USB reserves at most 80 % (90 % on USB 1.1 and 3) of each (micro)frame for
            /// periodic transfers. High speed: 6 000 of 7 500 bytes per 125 µs microframe.
            public var busBytesPerSecond: Int {
                switch self {
                case .usbFull: return 1_350_000
                case .usbHigh: return 48_000_000
                case .usbSuper: return 400_000_000
                }
            }

            /// What one camera's isochronous endpoint can carry, in bytes per second. High speed:
            /// 3 × 1 024 bytes per microframe, 24.6 MB/s, which is why no USB 2 camera sends
            /// 1080p YUYV at 30 frames per second.
            public var endpointBytesPerSecond: Int {
                switch self {
                case .usbFull: return 1_023_000
                case .usbHigh: return 24_576_000
                case .usbSuper: return 393_216_000
                }
            }

            /// The speed sysfs names in Mbit/s ("12", "480", "5000", …); nil for slower links.
            init?(sysfsMegabits: String) {
                guard let megabits = Double(sysfsMegabits) else { return nil }
                switch megabits {
                case 5000...: self = .usbSuper
                case 480..<5000: self = .usbHigh
                case 12..<480: self = .usbFull
                default: return nil
                }
            }
        }

        /// Names the bus: cameras with the same `id` share its bandwidth ("usb1").
        public var id: String
        /// The speed the camera's link runs at.
        public var speed: Speed

        /// A bus named `id` at `speed`.
        public init(id: String, speed: Speed) {
            self.id = id
            self.speed = speed
        }

        public var description: String {
            switch speed {
            case .usbFull: return "\(id) (USB 1.1)"
            case .usbHigh: return "\(id) (USB 2)"
            case .usbSuper: return "\(id) (USB 3)"
            }
        }
    }

    /// The bus the camera is attached by, when it shares one with other cameras (a USB camera);
    /// what ``CaptureMultiCamSession/hardwareCost`` adds up.
    public var bus: Bus? { backend.descriptor.bus }
}
