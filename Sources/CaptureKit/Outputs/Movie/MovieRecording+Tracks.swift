extension MovieRecording {
    /// What a recording of some connections holds: a video and an audio track (each with its
    /// encoding), and whether its producers may be held back (no device is live).
    struct Tracks: Sendable {
        var video: VideoTrack?
        var audio: AudioTrack?
        var holdBack: Bool

        /// The tracks of `connections` (their devices' active formats), encoded as `settings`
        /// says for each. With `passThrough`, a camera that sends the video codec asked for is
        /// recorded as it came (when the settings allow it).
        init(_ connections: [CaptureConnection], passThrough: Bool = false, settings: (CaptureConnection) -> MovieOutputSettings) {
            var devices: [CaptureDevice] = []
            for connection in connections {
                guard let device = connection.device else { continue }
                devices.append(device)
                let format = device.activeFormat
                if connection.mediaType == .video, let pixelFormat = format.pixelFormat {
                    let encoding = settings(connection)
                    video = VideoTrack(width: format.width, height: format.height, sourceFormat: pixelFormat,
                                       frameDuration: device.activeVideoMinFrameDuration, rotation: connection.videoRotationAngle,
                                       mirrored: connection.isVideoMirrored, settings: encoding,
                                       passThrough: passThrough ? Self.passThrough(device, encoding) : nil)
                } else if connection.mediaType == .audio, let audioFormat = format.audioFormat {
                    audio = AudioTrack(format: audioFormat, settings: settings(connection))
                }
            }
            holdBack = !devices.isEmpty && devices.allSatisfy { !$0.backend.isLive }
        }

        /// The stream of `device` when a recording encoded as `settings` stores it as it came.
        static func passThrough(_ device: CaptureDevice, _ settings: MovieOutputSettings) -> CodecParameters? {
            guard settings.passThrough, let coded = device.backend.codedVideo, coded.videoCodec == settings.videoCodec else { return nil }
            return coded
        }
    }
}
