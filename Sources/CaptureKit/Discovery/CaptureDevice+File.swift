import Foundation

extension CaptureDevice {
    /// Makes a camera and/or a microphone that play a media file (anything FFmpeg reads), and
    /// adds them to discovery with device type ``DeviceType/file``. `default(for:)` never picks
    /// them; find them through the result, ``device(uniqueID:)`` or a `DiscoverySession` for `.file`.
    ///
    /// Each device offers exactly the file's format: its frame size and rate in the decoder's
    /// pixel layout (I420 when CaptureKit has no such layout), or its sample rate and channels as
    /// interleaved `s16` and `f32`. Timestamps are the stream's start on the monotonic clock plus
    /// the sample's time in the file; video sequence numbers count frames, audio ones samples.
    /// Each stream opens the file itself on its own thread.
    ///
    /// ```swift
    /// let devices = try CaptureDevice.makeFileDevices(contentsOf: URL(fileURLWithPath: "door.mp4"))
    /// defer { devices.remove() }
    /// try session.addInput(CaptureDeviceInput(device: devices.video!))
    /// ```
    ///
    /// Throws `.fileError` (with errno) for a missing or unreadable file, `.unsupportedFile` for
    /// a file that is not media, has neither video nor audio, or cannot be decoded, and
    /// `.invalidArgument` when the devices' unique IDs are taken (the same file made into devices
    /// twice: pass another ``FileDeviceOptions/uniqueID``). Wraps `avformat_open_input` and
    /// `avformat_find_stream_info`.
    public static func makeFileDevices(contentsOf url: URL, options: FileDeviceOptions = FileDeviceOptions()) throws(CaptureError) -> FileDevices {
        let file = url.isFileURL ? url.standardizedFileURL : url
        let input = try MediaInput(url: file)
        let base = options.uniqueID ?? defaultFileDeviceBase(input.path)
        let name = options.name ?? file.lastPathComponent
        let clock = FileClock()
        func descriptor(_ mediaType: MediaType, _ model: String) -> DeviceDescriptor {
            DeviceDescriptor(uniqueID: fileDeviceID(base, mediaType), localizedName: name, modelID: model, manufacturer: "CaptureKit",
                             deviceType: .file, position: .unspecified, mediaType: mediaType, origin: .virtual)
        }
        let video = try FileVideoBackend.make(input, url: file, descriptor: descriptor(.video, "CaptureKit File Camera"),
                                              options: options, clock: clock)
        let audio = try FileAudioBackend.make(input, url: file, descriptor: descriptor(.audio, "CaptureKit File Microphone"),
                                              options: options, clock: clock)
        let backends: [any DeviceBackend] = [video as (any DeviceBackend)?, audio].compactMap { $0 }
        guard !backends.isEmpty else {
            throw CaptureError(.unsupportedFile, "the file has neither a video nor an audio stream", path: input.path)
        }
        try FileDeviceProvider.shared.add(backends, taken: Set(DeviceRegistry.shared.devices().map(\.uniqueID)))
        let devices = DeviceRegistry.shared.devices()
        func device(_ backend: (any DeviceBackend)?) -> CaptureDevice? {
            guard let backend else { return nil }
            return devices.first { $0.backend === backend }
        }
        let result = FileDevices(video: device(video), audio: device(audio))
        guard result.all.count == backends.count else {
            throw CaptureError(.internalError, "file devices of \(input.path) did not appear in discovery")
        }
        return result
    }

    /// Removes a device made with ``makeFileDevices(contentsOf:options:)`` from discovery. A
    /// session using it keeps its stream until reconfigured. Does nothing for other devices.
    public static func removeFileDevice(_ device: CaptureDevice) {
        guard device.deviceType == .file else { return }
        FileDeviceProvider.shared.remove(uniqueID: device.uniqueID)
    }

    /// The devices ``makeFileDevices(contentsOf:options:)`` made for the file at `url` with their
    /// default unique IDs, or nil when there are none (never made, or removed since).
    public static func fileDevices(playing url: URL) -> FileDevices? {
        let base = defaultFileDeviceBase((url.isFileURL ? url.standardizedFileURL : url).path)
        let devices = FileDevices(video: device(uniqueID: fileDeviceID(base, .video)), audio: device(uniqueID: fileDeviceID(base, .audio)))
        return devices.all.isEmpty ? nil : devices
    }

    /// `file:<path>`, what a file's devices' unique IDs start with unless the options name one.
    private static func defaultFileDeviceBase(_ path: String) -> String { "file:\(path)" }

    private static func fileDeviceID(_ base: String, _ mediaType: MediaType) -> String { "\(base)#\(mediaType.rawValue)" }
}
