extension CaptureDevice {
    /// What kind of device it is (`AVCaptureDevice.DeviceType`).
    public enum DeviceType: String, Sendable, Hashable, CaseIterable {
        /// A camera built into the machine (a laptop's, a board's); also the built-in virtual cameras.
        case builtInWideAngleCamera
        /// A camera plugged in from outside (USB, capture card).
        case external
        /// A microphone.
        case microphone
        /// Captures what the machine plays (a sound server's monitor source).
        case systemAudio
        /// A device CaptureKit makes up that claims no other type: the built-in virtual
        /// microphone, and the virtual cameras and microphones you make unless their
        /// configuration says otherwise (the built-in virtual cameras are
        /// `.builtInWideAngleCamera`s; ``CaptureDevice/isVirtual`` tells any made-up device).
        case virtual
        /// A camera or microphone playing a media file (`CaptureDevice.makeFileDevices(contentsOf:options:)`).
        /// Never chosen by `default(for:)`.
        case file
        /// A camera on the network: an IP camera's RTSP, an RTMP, SRT or HLS stream, an HTTP
        /// MJPEG camera (``CaptureDevice/networkCamera(url:options:)``). Never chosen by
        /// `default(for:)`.
        case network
        /// An iPhone's wide-angle and telephoto pair (`builtInDualCamera`). No Linux camera is
        /// one: kept so that ported lookups compile, they find nothing (see <doc:DevicesOnLinux>).
        case builtInDualCamera
        /// An iPhone's ultra-wide and wide-angle pair (`builtInDualWideCamera`); no Linux camera is one.
        case builtInDualWideCamera
        /// An iPhone's ultra-wide, wide-angle and telephoto trio (`builtInTripleCamera`); no Linux camera is one.
        case builtInTripleCamera
        /// An iPhone's telephoto camera (`builtInTelephotoCamera`); no Linux camera is one.
        case builtInTelephotoCamera
        /// An iPhone's ultra-wide camera (`builtInUltraWideCamera`); no Linux camera is one.
        case builtInUltraWideCamera
        /// An iPhone's front camera with its infrared depth sensor (`builtInTrueDepthCamera`);
        /// no Linux camera is one.
        case builtInTrueDepthCamera
        /// An iPhone's back camera with its LiDAR scanner (`builtInLiDARDepthCamera`); no Linux
        /// camera is one.
        case builtInLiDARDepthCamera
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
