import Foundation

extension CaptureDevice {
    /// The rotation that keeps a camera's picture level with the horizon
    /// (`AVCaptureDevice.RotationCoordinator`). On a phone it follows the accelerometer; a
    /// Linux camera is fixed where it is mounted and nothing reports gravity, so both angles
    /// are 0° (the picture as the sensor gives it) and never change: their update streams end
    /// at once. A camera mounted turned is set up with the connection's `videoRotationAngle`.
    public final class RotationCoordinator: Sendable {
        /// The camera.
        public let device: CaptureDevice

        /// A coordinator for `device`. `previewLayer` is accepted for ported code and unused:
        /// the preview's angle is the capture's.
        public init(device: CaptureDevice, previewLayer: AnyObject?) {
            self.device = device
        }

        /// The angle to give a preview of the camera (`videoRotationAngleForHorizonLevelPreview`): 0°.
        public var videoRotationAngleForHorizonLevelPreview: CGFloat { 0 }

        /// The angle to give the outputs' connections (`videoRotationAngleForHorizonLevelCapture`): 0°.
        public var videoRotationAngleForHorizonLevelCapture: CGFloat { 0 }

        /// Changes of ``videoRotationAngleForHorizonLevelPreview`` (what key-value observation
        /// gives on iOS): none, so the stream ends at once.
        public var videoRotationAngleForHorizonLevelPreviewUpdates: AsyncStream<CGFloat> { AsyncStream { $0.finish() } }

        /// Changes of ``videoRotationAngleForHorizonLevelCapture``: none, so the stream ends at once.
        public var videoRotationAngleForHorizonLevelCaptureUpdates: AsyncStream<CGFloat> { AsyncStream { $0.finish() } }
    }
}
