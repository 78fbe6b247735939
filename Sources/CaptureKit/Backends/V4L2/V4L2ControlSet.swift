internal import CV4L2

/// Reads a node's controls (VIDIOC_QUERY_EXT_CTRL walked with V4L2_CTRL_FLAG_NEXT_CTRL, menus
/// with VIDIOC_QUERYMENU) and knows which back CaptureKit's typed settings.
enum V4L2ControlSet {
    /// More controls than this is a driver bug.
    static let maximumControls = 1024
    /// Menus longer than this are cut (no real control has one).
    static let maximumMenuItems: Int64 = 256

    /// Every control of the node except control classes, disabled and compound controls.
    static func controls(of io: any V4L2DeviceIO) throws(CaptureError) -> [CaptureDevice.Control] {
        var result: [CaptureDevice.Control] = []
        var id: UInt32 = 0
        for _ in 0..<maximumControls {
            guard let info = try io.queryControl(after: id) else { break }
            id = info.id
            guard info.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0, let kind = kind(of: info.type) else { continue }
            var items: [CaptureDevice.Control.MenuItem] = []
            if kind == .menu || kind == .integerMenu, info.minimum <= info.maximum {
                for index in info.minimum...min(info.maximum, info.minimum + maximumMenuItems) {
                    if let name = try io.queryMenuItem(control: info.id, index: UInt32(clamping: index), isIntegerMenu: kind == .integerMenu) {
                        items.append(CaptureDevice.Control.MenuItem(value: index, name: name))
                    }
                }
            }
            result.append(CaptureDevice.Control(
                id: info.id, name: info.name, kind: kind, minimum: info.minimum, maximum: info.maximum,
                step: Int64(clamping: info.step), defaultValue: info.defaultValue, menuItems: items,
                isReadOnly: info.flags & UInt32(V4L2_CTRL_FLAG_READ_ONLY) != 0,
                isInactive: info.flags & UInt32(V4L2_CTRL_FLAG_INACTIVE) != 0,
                role: role(of: info.id)))
        }
        return result
    }

    static func kind(of type: UInt32) -> CaptureDevice.Control.Kind? {
        switch type {
        case V4L2_CTRL_TYPE_INTEGER.rawValue: return .integer
        case V4L2_CTRL_TYPE_BOOLEAN.rawValue: return .boolean
        case V4L2_CTRL_TYPE_MENU.rawValue: return .menu
        case V4L2_CTRL_TYPE_INTEGER_MENU.rawValue: return .integerMenu
        case V4L2_CTRL_TYPE_BUTTON.rawValue: return .button
        case V4L2_CTRL_TYPE_INTEGER64.rawValue: return .integer64
        case V4L2_CTRL_TYPE_BITMASK.rawValue: return .bitmask
        case V4L2_CTRL_TYPE_STRING.rawValue: return .string
        default: return nil
        }
    }

    /// The typed setting the standard control `id` backs.
    static func role(of id: UInt32) -> CameraControlRole? {
        roles[id]
    }

    private static let roles: [UInt32: CameraControlRole] = [
        ck_V4L2_CID_BRIGHTNESS(): .imageAdjustment(.brightness),
        ck_V4L2_CID_CONTRAST(): .imageAdjustment(.contrast),
        ck_V4L2_CID_SATURATION(): .imageAdjustment(.saturation),
        ck_V4L2_CID_HUE(): .imageAdjustment(.hue),
        ck_V4L2_CID_GAIN(): .imageAdjustment(.gain),
        ck_V4L2_CID_SHARPNESS(): .imageAdjustment(.sharpness),
        ck_V4L2_CID_GAMMA(): .imageAdjustment(.gamma),
        ck_V4L2_CID_EXPOSURE_AUTO(): .exposureMode,
        ck_V4L2_CID_EXPOSURE_ABSOLUTE(): .exposureTime,
        ck_V4L2_CID_AUTO_WHITE_BALANCE(): .autoWhiteBalance,
        ck_V4L2_CID_WHITE_BALANCE_TEMPERATURE(): .whiteBalanceTemperature,
        ck_V4L2_CID_FOCUS_AUTO(): .continuousAutoFocus,
        ck_V4L2_CID_AUTO_FOCUS_START(): .autoFocusStart,
        ck_V4L2_CID_FOCUS_ABSOLUTE(): .focusPosition,
        ck_V4L2_CID_ZOOM_ABSOLUTE(): .zoom,
        ck_V4L2_CID_POWER_LINE_FREQUENCY(): .powerLineFrequency,
        ck_V4L2_CID_FLASH_LED_MODE(): .torch,
        ck_V4L2_CID_HFLIP(): .horizontalFlip,
        ck_V4L2_CID_VFLIP(): .verticalFlip,
    ]
}

/// What `VIDIOC_QUERY_EXT_CTRL` says about one control. Wraps struct v4l2_query_ext_ctrl.
struct V4L2ControlInfo: Sendable, Hashable {
    var id: UInt32
    var name: String
    var type: UInt32
    var minimum: Int64
    var maximum: Int64
    var step: UInt64
    var defaultValue: Int64
    var flags: UInt32
}
