extension CaptureDevice {
    /// The sound server's source called `name` (as `pactl list sources` names it), e.g. a
    /// microphone a user picked by name. Throws `.deviceNotFound` when no server runs or it has
    /// no such source — never a device that would record silence.
    public static func soundServerSource(named name: String) throws(CaptureError) -> CaptureDevice {
        let uniqueID = PulseSourceBackend.uniqueIDPrefix + name
        guard let device = device(uniqueID: uniqueID) else {
            throw CaptureError(.deviceNotFound, "no sound server source named \(name)", deviceID: uniqueID)
        }
        return device
    }
}
