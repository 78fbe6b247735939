internal import CLibCamera
import Synchronization

/// A libcamera camera's controls as ``CaptureDevice/Control``s, in the integer terms the
/// control API shares with V4L2: floats (brightness, contrast, saturation, sharpness, gains,
/// lens position) in thousandths, `ExposureTime` in 100 µs units (V4L2's exposure time), the
/// `AeEnable` switch as V4L2's exposure menu (0 automatic, 1 manual), booleans as 0 and 1.
/// libcamera has no way to read a control back: a value is the latest the camera reported in a
/// frame's metadata, else the latest set, else the default. Values set while the camera does
/// not stream are applied when it starts; while it streams, from the next request queued.
final class LibCameraControls: Sendable {
    /// How one libcamera control maps onto the integer API.
    struct Mapping: Sendable {
        var control: CaptureDevice.Control
        var libcameraID: UInt32
        /// The integer is libcamera's value times this (1000 for floats, 0.01 for ExposureTime).
        var scale: Double
        /// AeEnable: the menu's 0 (automatic) is libcamera's true.
        var invertsBoolean: Bool
    }

    let mappings: [Mapping]
    private let values = Mutex<[UInt32: Int64]>([:])
    /// The running stream's session, which takes values at once.
    private let session = Mutex<LibCameraSession?>(nil)

    init(_ id: String) {
        var capacity = 64
        var controls: [ck_lc_control] = []
        while true {
            var buffer = [ck_lc_control](repeating: ck_lc_control(), count: capacity)
            let count = Int(LibCamera.api.controls(id, &buffer, Int32(capacity)))
            if count <= capacity {
                controls = Array(buffer.prefix(max(0, count)))
                break
            }
            capacity = count
        }
        mappings = controls.compactMap(Self.mapping)
    }

    var list: [CaptureDevice.Control] { mappings.map(\.control) }

    private static let roles: [String: CameraControlRole] = [
        "Brightness": .imageAdjustment(.brightness), "Contrast": .imageAdjustment(.contrast),
        "Saturation": .imageAdjustment(.saturation), "Sharpness": .imageAdjustment(.sharpness),
        "AnalogueGain": .imageAdjustment(.gain), "AeEnable": .exposureMode, "ExposureTime": .exposureTime,
        "AwbEnable": .autoWhiteBalance, "ColourTemperature": .whiteBalanceTemperature, "LensPosition": .focusPosition,
    ]

    private static func mapping(_ control: ck_lc_control) -> Mapping? {
        guard control.is_array == 0 else { return nil }
        let name = LibCamera.string(control.name)
        let role = roles[name]
        let scale: Double
        let kind: CaptureDevice.Control.Kind
        var items: [CaptureDevice.Control.MenuItem] = []
        var invert = false
        switch Int(control.type) {
        case Int(CK_LC_CONTROL_BOOL):
            scale = 1
            if name == "AeEnable" {
                kind = .menu
                items = [.init(value: 0, name: "Auto Mode"), .init(value: 1, name: "Manual Mode")]
                invert = true
            } else {
                kind = .boolean
            }
        case Int(CK_LC_CONTROL_FLOAT): scale = 1000; kind = .integer
        case Int(CK_LC_CONTROL_INT32): scale = name == "ExposureTime" ? 0.01 : 1; kind = .integer
        case Int(CK_LC_CONTROL_INT64): scale = 1; kind = .integer64
        default: return nil
        }
        func integer(_ value: Double) -> Int64 {
            let scaled = (value * scale).rounded()
            return invert ? (value != 0 ? 0 : 1) : Int64(exactly: scaled) ?? (scaled > 0 ? .max : .min)
        }
        var minimum = integer(control.minimum), maximum = integer(control.maximum)
        if minimum > maximum { swap(&minimum, &maximum) }
        let item = CaptureDevice.Control(id: control.id, name: name, kind: kind, minimum: minimum, maximum: maximum, step: 1,
                                         defaultValue: integer(control.default_value), menuItems: items, isReadOnly: false,
                                         isInactive: false, role: role)
        return Mapping(control: item, libcameraID: control.id, scale: scale, invertsBoolean: invert)
    }

    private func mapping(for control: CaptureDevice.Control) throws(CaptureError) -> Mapping {
        guard let mapping = mappings.first(where: { $0.libcameraID == control.id }) else {
            throw CaptureError(.unsupportedFormat, "the camera has no control \(control.name)")
        }
        return mapping
    }

    func value(of control: CaptureDevice.Control) throws(CaptureError) -> Int64 {
        let mapping = try mapping(for: control)
        return values.withLock { $0[mapping.libcameraID] } ?? mapping.control.defaultValue
    }

    func set(_ value: Int64, of control: CaptureDevice.Control) throws(CaptureError) {
        let mapping = try mapping(for: control)
        guard value >= mapping.control.minimum, value <= mapping.control.maximum else {
            throw .invalidArgument("\(value) is outside \(control.name)'s range \(mapping.control.minimum)...\(mapping.control.maximum)")
        }
        values.withLock { $0[mapping.libcameraID] = value }
        try session.withLock { $0 }?.set(mapping.libcameraID, to: libcameraValue(value, mapping))
    }

    private func libcameraValue(_ value: Int64, _ mapping: Mapping) -> Double {
        mapping.invertsBoolean ? (value == 0 ? 1 : 0) : Double(value) / mapping.scale
    }

    /// A stream started on `session`: the values set so far go with its first requests.
    func attach(_ session: LibCameraSession) throws(CaptureError) {
        let set = values.withLock { $0 }
        for (id, value) in set {
            guard let mapping = mappings.first(where: { $0.libcameraID == id }) else { continue }
            try session.set(id, to: libcameraValue(value, mapping))
        }
        self.session.withLock { $0 = session }
    }

    /// The stream ended.
    func detach(_ session: LibCameraSession) {
        self.session.withLock { if $0 === session { $0 = nil } }
    }

    /// What a completed request reported: the values it ran with.
    func noteMetadata(id: UInt32, value: Double) {
        guard let mapping = mappings.first(where: { $0.libcameraID == id }) else { return }
        let integer = mapping.invertsBoolean ? (value != 0 ? 0 : 1) : Int64((value * mapping.scale).rounded())
        values.withLock { $0[id] = integer }
    }
}
