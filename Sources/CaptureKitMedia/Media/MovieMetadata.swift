import CaptureKitCore
import Foundation

/// What a movie file says about itself (`AVCaptureMovieFileOutput.metadata`): written as the
/// container's title, creation time and ISO 6709 location tags.
public struct MovieMetadata: Sendable, Hashable {
    /// A place on Earth.
    public struct Location: Sendable, Hashable {
        /// Degrees north (negative: south).
        public var latitude: Double
        /// Degrees east (negative: west).
        public var longitude: Double
        /// Metres above sea level, if known.
        public var altitude: Double?

        /// A location.
        public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
        }

        /// ISO 6709, as QuickTime's `©xyz` atom holds it: `+48.8584+002.2945+035.000/`.
        package var iso6709: String {
            var text = String(format: "%+08.4f%+09.4f", latitude, longitude)
            if let altitude { text += String(format: "%+08.3f", altitude) }
            return text + "/"
        }
    }

    /// The title.
    public var title: String?
    /// When the recording was made; nil writes the time recording started.
    public var creationDate: Date?
    /// Where it was made.
    public var location: Location?
    /// Free text.
    public var comment: String?

    /// Empty metadata (the creation date is still written).
    public init(title: String? = nil, creationDate: Date? = nil, location: Location? = nil, comment: String? = nil) {
        self.title = title
        self.creationDate = creationDate
        self.location = location
        self.comment = comment
    }
}
