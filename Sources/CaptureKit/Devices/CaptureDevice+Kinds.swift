extension CaptureDevice {
    /// What kind of device it is (`AVCaptureDevice.DeviceType`).
    public enum DeviceType: String, Sendable, Hashable, CaseIterable {
        /// A camera built into the machine (a laptop's).
        case builtInWideAngleCamera
        /// A camera plugged in from outside (USB, capture card).
        case external
        /// A microphone.
        case microphone
        /// Captures what the machine plays (a sound server's monitor source).
        case systemAudio
        /// A device CaptureKit makes up: the built-in virtual camera and microphone, or one you made.
        case virtual
        /// A camera or microphone playing a media file (`CaptureDevice.makeFileDevices(contentsOf:options:)`).
        /// Never chosen by `default(for:)`.
        case file
    }

    /// Where a camera faces (`AVCaptureDevice.Position`).
    public enum Position: String, Sendable, Hashable, CaseIterable {
        /// Unknown, or not a camera.
        case unspecified
        /// Faces away from the user.
        case back
        /// Faces the user (its picture is mirrored by default in previews).
        case front
    }

    /// Whether the user may use devices of a media type (`AVAuthorizationStatus`).
    public enum AuthorizationStatus: String, Sendable, Hashable {
        /// Not yet known.
        case notDetermined
        /// Forbidden by policy.
        case restricted
        /// The device nodes exist but this user may not open them (see the `video` group).
        case denied
        /// Usable.
        case authorized
    }
}
