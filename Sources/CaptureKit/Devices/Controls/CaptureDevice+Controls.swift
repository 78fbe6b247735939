extension CaptureDevice {
    /// Every control the driver has, with ranges and menus; empty for devices without controls
    /// (virtual and file devices). This list, as the backend reports it, is the one source of
    /// every typed capability: each `is…Supported`, `hasTorch` and range answers from it.
    public var controls: [Control] { (backend as? any CameraControlBackend)?.cameraControls ?? [] }

    /// The control called `name` (its ``Control/key`` or its driver name, any case).
    public func control(named name: String) -> Control? {
        let key = Control.key(for: name)
        return controls.first { $0.key == key }
    }

    /// The current value of `control`. Wraps VIDIOC_G_EXT_CTRLS.
    public func value(of control: Control) throws(CaptureError) -> Int64 {
        try controlBackend(for: control.name).value(of: control)
    }

    /// The current value of the control called `name`.
    public func controlValue(named name: String) throws(CaptureError) -> Int64 {
        try value(of: try requireControl(named: name))
    }

    /// Sets `control` to `value`. Requires ``lockForConfiguration()``; `.invalidArgument` for a
    /// value the control does not take. Wraps VIDIOC_S_EXT_CTRLS.
    public func setValue(_ value: Int64, for control: Control) throws(CaptureError) {
        try requireConfigurationLock()
        guard !control.isReadOnly else {
            throw CaptureError(.notSupported, "control '\(control.key)' of \(localizedName) is read-only", deviceID: uniqueID)
        }
        guard control.accepts(value) else {
            throw CaptureError(.invalidArgument, "\(value) is not a value of control \(control)", deviceID: uniqueID)
        }
        try controlBackend(for: control.name).setValue(value, of: control)
    }

    /// Sets the control called `name` from text: a number, `true`/`false`, or a menu item's
    /// name (case-insensitive). Requires ``lockForConfiguration()``.
    public func setControl(named name: String, to text: String) throws(CaptureError) {
        let control = try requireControl(named: name)
        let trimmed = text.lowercased()
        let value: Int64
        if let number = Int64(text) {
            value = number
        } else if control.kind == .boolean, ["true", "on", "yes"].contains(trimmed) {
            value = 1
        } else if control.kind == .boolean, ["false", "off", "no"].contains(trimmed) {
            value = 0
        } else if let item = control.menuItems.first(where: { $0.name.lowercased() == trimmed }) {
            value = item.value
        } else {
            throw CaptureError(.invalidArgument, "'\(text)' is not a value of control \(control)", deviceID: uniqueID)
        }
        try setValue(value, for: control)
    }

    private func requireControl(named name: String) throws(CaptureError) -> Control {
        guard let control = control(named: name) else {
            let known = controls.map(\.key).joined(separator: ", ")
            throw CaptureError(.notSupported, "\(localizedName) has no control '\(name)' (it has: \(known.isEmpty ? "none" : known))", deviceID: uniqueID)
        }
        return control
    }

    private func controlBackend(for what: String) throws(CaptureError) -> any CameraControlBackend {
        guard let backend = backend as? any CameraControlBackend else {
            throw CaptureError(.notSupported, "\(localizedName) has no control '\(what)'", deviceID: uniqueID)
        }
        return backend
    }

    // MARK: The typed settings' lookup

    /// The control that backs `role`, if the device has one the typed API can set. A read-only
    /// control backs no typed setting (the raw API still lists and reads it): a capability is
    /// something an application can change.
    func control(for role: CameraControlRole) -> Control? {
        controls.first { $0.role == role && !$0.isReadOnly }
    }

    /// The control of `role`, or `.notSupported` naming `what`.
    func requireControl(for role: CameraControlRole, _ what: String) throws(CaptureError) -> Control {
        guard let control = control(for: role) else { throw unsupported(what) }
        return control
    }

    /// Sets the control of `role` to `value`, after the lock and support checks.
    func setRole(_ role: CameraControlRole, _ value: Int64, _ what: String) throws(CaptureError) {
        try requireConfigurationLock()
        try setValue(value, for: try requireControl(for: role, what))
    }

    /// The error of a typed setting the device lacks.
    func unsupported(_ what: String) -> CaptureError {
        CaptureError(.notSupported, "\(localizedName) does not support \(what)", deviceID: uniqueID)
    }
}
