extension CaptureDevice {
    /// One way a device can capture: a frame size and pixel format with the frame rates it
    /// supports, or an audio format (`AVCaptureDevice.Format`).
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

        /// A video format.
        public init(pixelFormat: PixelFormat, width: Int, height: Int, frameRateRanges: [FrameRateRange]) {
            mediaType = .video
            self.pixelFormat = pixelFormat
            self.width = width
            self.height = height
            videoSupportedFrameRateRanges = frameRateRanges
            audioFormat = nil
        }

        /// An audio format.
        public init(audioFormat: AudioFormat) {
            mediaType = .audio
            pixelFormat = nil
            width = 0
            height = 0
            videoSupportedFrameRateRanges = []
            self.audioFormat = audioFormat
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
            return "\(width)x\(height) \(pixelFormat?.rawValue ?? "?") @ \(rates)"
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
