extension CaptureDevice {
    /// Opens any ALSA capture PCM by name as a microphone, as `arecord -D NAME` would:
    /// `plughw:1,0` (a card with ALSA's format conversion), `default`, `pulse` (through a sound
    /// server), or a PCM defined in an asoundrc or `ALSA_CONFIG_PATH` file. Its unique ID is
    /// `alsa:` followed by the PCM name. Sound cards' own `hw:` devices are found by discovery
    /// when no sound server runs; named PCMs are not added to discovery (they are what the
    /// caller asked for, not microphones of the machine), so they never become the default.
    ///
    /// Throws `.deviceNotFound` for a name ALSA does not know, `.deviceBusy` when another
    /// program holds the device, `.unsupportedFormat` when it has no s16/s32/float format.
    ///
    /// ```swift
    /// let microphone = try CaptureDevice.alsaMicrophone(pcm: "plughw:1,0")
    /// try session.addInput(CaptureDeviceInput(device: microphone))
    /// ```
    public static func alsaMicrophone(pcm: String, localizedName: String? = nil) throws(CaptureError) -> CaptureDevice {
        if let listed = device(uniqueID: ALSABackend.uniqueIDPrefix + pcm) {
            return listed
        }
        return CaptureDevice(backend: try ALSABackend(pcmName: pcm, localizedName: localizedName ?? "ALSA \(pcm)"))
    }

    /// The ALSA PCM name behind this device, or nil when it is not an ALSA device.
    public var alsaPCMName: String? { (backend as? ALSABackend)?.pcmName }
}
