import Foundation

// The photo features of iPhone cameras that modern capture code sets unconditionally, guarded
// by their `…Supported` members (Apple's AVCam does). No Linux camera has them, so each is
// "supported: false"; turning one on logs a warning through CaptureLog and keeps it off, where
// AVFoundation would raise an exception — code written the guarded way never hits that.

extension CapturePhotoOutput {
    /// Speed against quality (`AVCapturePhotoOutput.QualityPrioritization`).
    public enum QualityPrioritization: Int, Sendable, Hashable, CaseIterable, Comparable {
        /// The fastest photo.
        case speed = 1
        /// Balanced (the default).
        case balanced = 2
        /// The best photo, even if slower.
        case quality = 3

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The highest ``CapturePhotoSettings/photoQualityPrioritization`` requests may ask for
    /// (`maxPhotoQualityPrioritization`); `.balanced` by default. Every level takes the next
    /// frame, since no Linux camera fuses several frames into one photo.
    public var maxPhotoQualityPrioritization: QualityPrioritization {
        get { qualityCeiling.withLock { $0 } }
        set { qualityCeiling.withLock { $0 = newValue } }
    }

    /// The codecs photos can be written in (`availablePhotoCodecTypes`): `.jpeg`, and `.hevc`
    /// (HEIF) where x265 is installed. PNG, which has no codec type, is in
    /// ``availablePhotoFileTypes``.
    public var availablePhotoCodecTypes: [VideoCodecType] {
        availablePhotoFileTypes.compactMap { type in
            switch type {
            case .jpeg: return .jpeg
            case .heif: return .hevc
            case .png, .dng: return nil
            }
        }
    }

    /// Whether Live Photos can be taken (`isLivePhotoCaptureSupported`): false.
    public var isLivePhotoCaptureSupported: Bool { false }
    /// Whether Live Photos are on (`isLivePhotoCaptureEnabled`): always false.
    public var isLivePhotoCaptureEnabled: Bool {
        get { false }
        set { refuse(newValue, "isLivePhotoCaptureEnabled") }
    }

    /// Whether photos can overlap their processing (`isResponsiveCaptureSupported`): false, as
    /// a name; requests already overlap here (see ``inFlightCaptureCount``).
    public var isResponsiveCaptureSupported: Bool { false }
    /// Whether responsive capture is on (`isResponsiveCaptureEnabled`): always false.
    public var isResponsiveCaptureEnabled: Bool {
        get { false }
        set { refuse(newValue, "isResponsiveCaptureEnabled") }
    }

    /// Whether bursts lower their quality to keep up (`isFastCapturePrioritizationSupported`): false.
    public var isFastCapturePrioritizationSupported: Bool { false }
    /// Whether fast-capture prioritization is on (`isFastCapturePrioritizationEnabled`): always false.
    public var isFastCapturePrioritizationEnabled: Bool {
        get { false }
        set { refuse(newValue, "isFastCapturePrioritizationEnabled") }
    }

    /// Whether a proxy photo can come first and the final one later
    /// (`isAutoDeferredPhotoDeliverySupported`): false; every photo is final.
    public var isAutoDeferredPhotoDeliverySupported: Bool { false }
    /// Whether deferred delivery is on (`isAutoDeferredPhotoDeliveryEnabled`): always false.
    public var isAutoDeferredPhotoDeliveryEnabled: Bool {
        get { false }
        set { refuse(newValue, "isAutoDeferredPhotoDeliveryEnabled") }
    }

    /// Whether photos can come from a frame delivered before the request
    /// (`isZeroShutterLagSupported`): true.
    public var isZeroShutterLagSupported: Bool { true }
    /// Whether a photo takes the newest frame already delivered, when it came at most a frame
    /// interval (and a half) ago, instead of waiting for the next one (`isZeroShutterLagEnabled`):
    /// true by default, as on iOS 17. The photo then costs its encoding only. A photo that
    /// switches the camera's format, fires a flash or sets
    /// ``CapturePhotoSettings/waitsForNextFrame`` takes the next frame all the same; so does
    /// one when no frame came in the last interval and a half (a stalled camera), or when no
    /// output but the photo output looks at a network camera's pixels (its frames are then
    /// left undecoded between photos). While on, the output holds the newest frame by
    /// reference (one buffer of the camera's at most).
    public var isZeroShutterLagEnabled: Bool {
        get { engine.zeroShutterLag.load(ordering: .relaxed) }
        set {
            engine.zeroShutterLag.store(newValue, ordering: .relaxed)
            if !newValue { engine.forgetNewestFrame() }
        }
    }

    private func refuse(_ value: Bool, _ name: String) {
        guard value else { return }
        CaptureLog.emit(.warning, "capturekit", "the photo output does not support \(name); it stays false")
    }
}

/// A stand-in photo delivered before the final one is processed (`AVCaptureDeferredPhotoProxy`).
/// Never delivered here: ``CapturePhotoOutput/isAutoDeferredPhotoDeliverySupported`` is false.
/// It exists so that delegates written for iOS compile.
public final class CaptureDeferredPhotoProxy: Sendable {
    private init() {}

    /// The proxy's file (`fileDataRepresentation()`).
    public func fileDataRepresentation() -> Data? { nil }
}
