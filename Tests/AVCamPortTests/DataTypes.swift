import CaptureKit
import Foundation

// AVCam's model types, ported with the renames in Sources/CaptureKit/CaptureKit.docc/PortingFromAVFoundation.md.

/// The capture modes the app supports.
enum CaptureMode: String, Identifiable, CaseIterable, Sendable {
    var id: Self { self }
    /// Photos.
    case photo
    /// Movies.
    case video
}

/// What the capture service is doing.
enum CaptureActivity: Equatable, Sendable {
    case idle
    /// Taking a photo.
    case photoCapture(willCapture: Bool = false, isLivePhoto: Bool = false)
    /// Recording, for `duration` seconds so far.
    case movieCapture(duration: TimeInterval = 0.0)

    var isRecording: Bool {
        if case .movieCapture(_) = self { return true }
        return false
    }
}

/// A photo the app captured.
struct Photo: Sendable {
    let data: Data
    let isProxy: Bool
    let livePhotoMovieURL: URL?
}

/// A movie the app recorded.
struct Movie: Sendable {
    /// Where the file is.
    let url: URL
}

/// The features a photo capture uses.
struct PhotoFeatures: Sendable {
    let isLivePhotoEnabled: Bool
    let qualityPrioritization: QualityPrioritization
}

/// Which trade-off between speed and quality a photo makes.
enum QualityPrioritization: Int, Identifiable, CaseIterable, CustomStringConvertible, Sendable {
    var id: Self { self }
    case speed = 1
    case balanced
    case quality
    var description: String {
        switch self {
        case .speed: return "Speed"
        case .balanced: return "Balanced"
        case .quality: return "Quality"
        }
    }
}

/// What the current camera and mode can do.
struct CaptureCapabilities: Sendable {
    let isLivePhotoCaptureSupported: Bool
    let isHDRSupported: Bool

    init(isLivePhotoCaptureSupported: Bool = false, isHDRSupported: Bool = false) {
        self.isLivePhotoCaptureSupported = isLivePhotoCaptureSupported
        self.isHDRSupported = isHDRSupported
    }

    static let unknown = CaptureCapabilities()
}

/// The app's errors.
enum CameraError: Error {
    case videoDeviceUnavailable
    case audioDeviceUnavailable
    case addInputFailed
    case addOutputFailed
    case setupFailed
    case deniedAuthorization
}

/// What the service needs of each output helper.
protocol OutputService {
    associatedtype Output: CaptureOutput
    var output: Output { get }
    var captureActivity: CaptureActivity { get }
    var capabilities: CaptureCapabilities { get }
    func updateConfiguration(for device: CaptureDevice)
    func setVideoRotationAngle(_ angle: CGFloat)
}

extension OutputService {
    func setVideoRotationAngle(_ angle: CGFloat) {
        output.connection(with: .video)?.videoRotationAngle = angle
    }
    func updateConfiguration(for device: CaptureDevice) {}
}
