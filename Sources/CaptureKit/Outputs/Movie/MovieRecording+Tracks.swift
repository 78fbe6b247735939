extension MovieRecording {
    /// What a recording of some connections holds: a video and an audio track (each with its
    /// encoding), and whether its producers may be held back (no device is live).
    struct Tracks: Sendable {
        var video: VideoTrack?
        var audio: AudioTrack?
        var holdBack: Bool

        /// The tracks of `connections` (their devices' active formats), encoded as `settings`
        /// says for each.
        init(_ connections: [CaptureConnection], settings: (CaptureConnection) -> MovieOutputSettings) {
            var devices: [CaptureDevice] = []
            for connection in connections {
                guard let device = connection.device else { continue }
                devices.append(device)
                let format = device.activeFormat
                if connection.mediaType == .video, let pixelFormat = format.pixelFormat {
                    video = VideoTrack(width: format.width, height: format.height, sourceFormat: pixelFormat,
                                       frameDuration: device.activeVideoMinFrameDuration, rotation: connection.videoRotationAngle,
                                       mirrored: connection.isVideoMirrored, settings: settings(connection))
                } else if connection.mediaType == .audio, let audioFormat = format.audioFormat {
                    audio = AudioTrack(format: audioFormat, settings: settings(connection))
                }
            }
            holdBack = !devices.isEmpty && devices.allSatisfy { !$0.backend.isLive }
        }
    }
}
