extension CaptureDevice {
    /// One of a camera's controls, as its driver describes it (a V4L2 control): for settings
    /// the typed API (``setImageAdjustment(_:to:)``, ``setExposureMode(_:)``…) does not cover.
    /// Read and change values with ``value(of:)`` and ``setValue(_:for:)``.
    public struct Control: Sendable, Hashable, Identifiable, CustomStringConvertible {
        /// What values a control takes.
        public enum Kind: String, Sendable, Hashable {
            /// A number from ``minimum`` to ``maximum`` in ``step``s.
            case integer
            /// 0 or 1.
            case boolean
            /// One of ``menuItems``, by value.
            case menu
            /// One of ``menuItems``, whose names are numbers.
            case integerMenu
            /// An action: setting any value triggers it.
            case button
            /// A 64-bit number.
            case integer64
            /// A set of bits.
            case bitmask
            /// Text (listed, not settable through this API).
            case string
        }

        /// One choice of a menu control.
        public struct MenuItem: Sendable, Hashable {
            /// The value that selects it.
            public let value: Int64
            /// Its name ("50 Hz"), or its number for integer menus.
            public let name: String
        }

        /// The driver's identifier (the V4L2 control ID, `V4L2_CID_BRIGHTNESS`…).
        public let id: UInt32
        /// The driver's name ("White Balance Temperature").
        public let name: String
        /// The name in lower case with `_` between words, as `v4l2-ctl` spells it
        /// ("white_balance_temperature").
        public let key: String
        /// What values it takes.
        public let kind: Kind
        /// The smallest value.
        public let minimum: Int64
        /// The largest value.
        public let maximum: Int64
        /// The distance between values.
        public let step: Int64
        /// The value the driver starts with.
        public let defaultValue: Int64
        /// The choices of a menu control, in order; empty for other kinds.
        public let menuItems: [MenuItem]
        /// Whether the value can only be read.
        public let isReadOnly: Bool
        /// Whether the control has no effect now (manual exposure while exposure is automatic).
        public let isInactive: Bool
        /// Which typed setting the control backs, if any.
        let role: CameraControlRole?

        init(id: UInt32, name: String, kind: Kind, minimum: Int64, maximum: Int64, step: Int64, defaultValue: Int64,
             menuItems: [MenuItem], isReadOnly: Bool, isInactive: Bool, role: CameraControlRole?) {
            self.id = id
            self.name = name
            key = Self.key(for: name)
            self.kind = kind
            self.minimum = minimum
            self.maximum = maximum
            self.step = step
            self.defaultValue = defaultValue
            self.menuItems = menuItems
            self.isReadOnly = isReadOnly
            self.isInactive = isInactive
            self.role = role
        }

        /// `v4l2-ctl`'s spelling of a control name: lower case, runs of other characters as one `_`.
        static func key(for name: String) -> String {
            name.lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }.joined(separator: "_")
        }

        /// The value of the control's range nearest to `value`, on its steps: typed settings
        /// (a lens position, a zoom factor, an exposure time) become driver units through it.
        func nearestValue(to value: Int64) -> Int64 {
            let unit = max(step, 1)
            return min(maximum, max(minimum, minimum + (value - minimum + unit / 2) / unit * unit))
        }

        /// Whether `value` is one the control accepts.
        public func accepts(_ value: Int64) -> Bool {
            switch kind {
            case .menu, .integerMenu: return menuItems.contains { $0.value == value }
            case .boolean: return value == 0 || value == 1
            case .button: return true
            case .string: return false
            case .bitmask: return value >= 0 && value & ~maximum == 0
            case .integer, .integer64:
                return value >= minimum && value <= maximum && (step <= 1 || (value - minimum) % step == 0)
            }
        }

        /// The key, kind, range or menu, default and flags, as `capture controls` lists them.
        public var description: String {
            var text = "\(key) (\(kind.rawValue))"
            switch kind {
            case .menu, .integerMenu: text += " " + menuItems.map { "\($0.value)=\($0.name)" }.joined(separator: " ")
            case .integer, .integer64: text += " \(minimum)...\(maximum) step \(step)"
            default: break
            }
            text += " default=\(defaultValue)"
            if isReadOnly { text += " read-only" }
            if isInactive { text += " inactive" }
            return text
        }
    }
}
