extension CaptureDevice {
    /// One way a device can capture: a frame size and pixel format with the frame rates it
    /// supports, or an audio format (`AVCaptureDevice.Format`).
    ///
    /// ```swift
    /// // The largest format that runs at 30 frames a second, at 30 frames a second.
    /// let formats = camera.formats.filter { $0.videoSupportedFrameRateRanges.contains { $0.maxFrameRate >= 30 } }
    /// if let format = formats.max(by: { $0.width * $0.height < $1.width * $1.height }) {
    ///     try camera.lockForConfiguration()
    ///     defer { camera.unlockForConfiguration() }
    ///     try camera.setActiveFormat(format)
    ///     try camera.setActiveVideoMinFrameDuration(MediaTime(value: 1, timescale: 30))
    /// }
    /// ```
    public struct Format: Sendable, Hashable, CustomStringConvertible {
        /// Video or audio.
        public let mediaType: MediaType
        /// The frame layout, for video formats.
        public let pixelFormat: PixelFormat?
        /// Frame width in pixels (0 for audio).
        public let width: Int
        /// Frame height in pixels (0 for audio).
        public let height: Int
        /// The frame rates the device can run this format at.
        public let videoSupportedFrameRateRanges: [FrameRateRange]
        /// The sample layout, for audio formats.
        public let audioFormat: AudioFormat?
        /// How the device sends frames: uncompressed in ``pixelFormat``, or coded (JPEG images,
        /// a network camera's H.264 or HEVC) and decoded by CaptureKit to ``pixelFormat``.
        public let encoding: Encoding
        /// The V4L2 FourCC the camera sends (`"YUYV"`, `"MJPG"`), nil for devices that are not V4L2.
        public let fourCC: String?

        /// How a device sends the frames of a format.
        public enum Encoding: String, Sendable, Hashable {
            /// Raw pixels.
            case uncompressed
            /// Motion JPEG: one JPEG image per frame (`V4L2_PIX_FMT_MJPEG`).
            case mjpeg
            /// H.264 (a network camera): a movie recorded as H.264 stores it as it came.
            case h264
            /// HEVC / H.265 (a network camera): a movie recorded as HEVC stores it as it came.
            case hevc
            /// Another codec a network camera sends (MPEG-4 Part 2, VP8, …), only ever decoded.
            case otherCodec
        }

        /// A video format.
        public init(pixelFormat: PixelFormat, width: Int, height: Int, frameRateRanges: [FrameRateRange]) {
            self.init(pixelFormat: pixelFormat, width: width, height: height, frameRateRanges: frameRateRanges, encoding: .uncompressed, fourCC: nil)
        }

        /// A video format a device sends as `encoding`, as V4L2 `fourCC`.
        init(pixelFormat: PixelFormat, width: Int, height: Int, frameRateRanges: [FrameRateRange], encoding: Encoding, fourCC: String?) {
            mediaType = .video
            self.pixelFormat = pixelFormat
            self.width = width
            self.height = height
            videoSupportedFrameRateRanges = frameRateRanges
            audioFormat = nil
            self.encoding = encoding
            self.fourCC = fourCC
        }

        /// An audio format.
        public init(audioFormat: AudioFormat) {
            mediaType = .audio
            pixelFormat = nil
            width = 0
            height = 0
            videoSupportedFrameRateRanges = []
            self.audioFormat = audioFormat
            encoding = .uncompressed
            fourCC = nil
        }

        /// The shortest frame duration (highest rate) the format supports.
        public var minFrameDuration: MediaTime {
            videoSupportedFrameRateRanges.map(\.minFrameDuration).min() ?? .invalid
        }

        /// The longest frame duration (lowest rate) the format supports.
        public var maxFrameDuration: MediaTime {
            videoSupportedFrameRateRanges.map(\.maxFrameDuration).max() ?? .invalid
        }

        /// Whether the device can run this format with frames of `duration`.
        public func supportsFrameDuration(_ duration: MediaTime) -> Bool {
            videoSupportedFrameRateRanges.contains { $0.contains(frameDuration: duration) }
        }

        /// The supported frame duration closest to `duration` (1/30 s for a 30 fps request on a
        /// 15...60 fps range; 1/25 s for it on a 25-fps-only format).
        func nearestFrameDuration(to duration: MediaTime) -> MediaTime {
            var best = MediaTime.invalid
            var bestDistance = Double.infinity
            for range in videoSupportedFrameRateRanges {
                let candidate = MediaTime.maximum(range.minFrameDuration, MediaTime.minimum(range.maxFrameDuration, duration))
                let distance = abs(candidate.seconds - duration.seconds)
                if distance < bestDistance { (best, bestDistance) = (candidate, distance) }
            }
            return best
        }

        public var description: String {
            if let audioFormat { return audioFormat.description }
            let rates = videoSupportedFrameRateRanges.map(\.description).joined(separator: ",")
            let layout = encoding == .uncompressed ? pixelFormat?.rawValue ?? "?" : encoding.rawValue
            return "\(width)x\(height) \(layout) @ \(rates)"
        }
    }

    /// A range of frame rates a format supports (`AVFrameRateRange`). A discrete rate has
    /// equal minimum and maximum.
    public struct FrameRateRange: Sendable, Hashable, CustomStringConvertible {
        /// The shortest frame duration: 1 / ``maxFrameRate``.
        public let minFrameDuration: MediaTime
        /// The longest frame duration: 1 / ``minFrameRate``.
        public let maxFrameDuration: MediaTime

        /// A range between two frame durations.
        public init(minFrameDuration: MediaTime, maxFrameDuration: MediaTime) {
            self.minFrameDuration = MediaTime.minimum(minFrameDuration, maxFrameDuration)
            self.maxFrameDuration = MediaTime.maximum(minFrameDuration, maxFrameDuration)
        }

        /// A single rate, `fps` frames per second.
        public init(fps: Int32) {
            let duration = MediaTime(value: 1, timescale: fps)
            self.init(minFrameDuration: duration, maxFrameDuration: duration)
        }

        /// The lowest rate in frames per second.
        public var minFrameRate: Double { 1 / maxFrameDuration.seconds }
        /// The highest rate in frames per second.
        public var maxFrameRate: Double { 1 / minFrameDuration.seconds }

        /// Whether `duration` lies inside the range.
        public func contains(frameDuration duration: MediaTime) -> Bool {
            duration >= minFrameDuration && duration <= maxFrameDuration
        }

        public var description: String {
            minFrameDuration == maxFrameDuration ? "\(Self.format(maxFrameRate)) fps"
                : "\(Self.format(minFrameRate))-\(Self.format(maxFrameRate)) fps"
        }

        private static func format(_ rate: Double) -> String {
            rate == rate.rounded() ? String(Int(rate)) : String((rate * 100).rounded() / 100)
        }
    }
}
