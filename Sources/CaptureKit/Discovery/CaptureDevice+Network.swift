extension CaptureDevice {
    /// A camera on the network, as a device like any other: every output works on it. Reads
    /// RTSP (`rtsp://user:password@host/path`, over TCP unless the options say UDP), RTMP
    /// (`rtmp://host/app/stream`), SRT (`srt://host:port`, caller; `?mode=listener` waits for
    /// the sender), HLS (`http://host/live.m3u8`), HTTP multipart MJPEG (an ESP32-CAM's
    /// `http://host/stream`, CaptureKit's web preview) and RTP or MPEG-TS over UDP. Connects
    /// once to learn the stream's picture size and rate, which become the device's one format
    /// (decoded frames in the codec's pixel layout, or I420), and its sound, which its
    /// ``companionMicrophone`` captures.
    ///
    /// Live, not like a file: each frame is delivered as soon as it is decoded, dated on the
    /// monotonic clock by when it arrived, smoothed by the stream's own timestamps (never
    /// backwards). A stream that breaks, ends or sends nothing for
    /// ``NetworkCameraOptions/stallTimeout`` interrupts the session
    /// (`.wasInterrupted(.videoDeviceNotAvailable)`); CaptureKit connects again with capped
    /// backoff and the session posts `.interruptionEnded` with the first frame.
    ///
    /// The device is not added to discovery (it is what the caller asked for, not a camera of
    /// the machine). Its `uniqueID` (`network:` and the URL without credentials or query) and
    /// `localizedName` never contain the URL's password, stream key or passphrase, nor do errors
    /// or log lines. Throws `.invalidArgument` for what is not such a URL, `.connectionFailed`
    /// for a server that cannot be reached or does not answer within
    /// ``NetworkCameraOptions/connectTimeout``,
    /// `.notAuthorized` for refused credentials, `.unsupportedFormat` for a stream without
    /// decodable video. Wraps `avformat_open_input` and `avformat_find_stream_info`.
    ///
    /// ```swift
    /// let door = try CaptureDevice.networkCamera(url: "rtsp://viewer:secret@192.168.1.20/stream1")
    /// try session.addInput(CaptureDeviceInput(device: door))
    /// ```
    public static func networkCamera(url: String, options: NetworkCameraOptions = NetworkCameraOptions()) throws(CaptureError) -> CaptureDevice {
        CaptureDevice(backend: try NetworkCameraBackend(url: url, options: options))
    }

    /// The microphone of a network camera that sends sound: its main audio stream, read from the
    /// same connection as its pictures (one connection whichever of the two a session uses,
    /// opened with the first and closed with the last) and dated on the same clock, so the two
    /// stay as aligned as the camera sent them. Its formats are the stream's rate and channel
    /// count as interleaved `s16` and `f32`; it goes away and comes back with the camera.
    /// The same device each time while anyone holds it. Nil for other devices and for a camera
    /// whose first connection had no sound FFmpeg decodes.
    ///
    /// ```swift
    /// let door = try CaptureDevice.networkCamera(url: "rtsp://192.168.1.20/stream1")
    /// try session.addInput(CaptureDeviceInput(device: door))
    /// if let sound = door.companionMicrophone {
    ///     try session.addInput(CaptureDeviceInput(device: sound))
    /// }
    /// ```
    public var companionMicrophone: CaptureDevice? { (backend as? NetworkCameraBackend)?.microphoneDevice() }

    /// How far a network camera's clock is ahead of this machine's (negative: behind), as the
    /// camera's RTCP sender reports (NTP time) tell while it streams, less the fastest frame's
    /// trip here: what to add to this machine's time to get the camera's. Nil for other devices,
    /// before the camera streams, and for cameras that send no sender reports (anything but
    /// RTSP and RTP). Frames are dated on this machine's clock whatever it says; a camera whose
    /// clock is off is still dated right, and this says by how much it is off.
    public var cameraClockOffset: Duration? { (backend as? NetworkCameraBackend)?.cameraClockLead }

    /// Whether `name` looks like the URL of a network camera (`scheme://…` with a scheme
    /// ``networkCamera(url:options:)`` reads).
    static func isNetworkCameraURL(_ name: String) -> Bool {
        guard let end = name.range(of: "://") else { return false }
        return NetworkCameraBackend.schemes.contains(name[..<end.lowerBound].lowercased())
    }
}
