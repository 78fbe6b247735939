/// Receives what a ``CaptureMetadataOutput`` finds, on the queue given to
/// `setMetadataObjectsDelegate(_:queue:)` (`AVCaptureMetadataOutputObjectsDelegate`). The output
/// holds the delegate weakly.
///
/// ```swift
/// final class Scanner: CaptureMetadataOutputObjectsDelegate {
///     func metadataOutput(_ output: CaptureMetadataOutput, didOutput metadataObjects: [MetadataObject],
///                         from connection: CaptureConnection) {
///         for case let code as MachineReadableCodeObject in metadataObjects { print(code.stringValue ?? "") }
///     }
/// }
/// ```
public protocol CaptureMetadataOutputObjectsDelegate: AnyObject, Sendable {
    /// The objects found in one frame (never empty: a frame with nothing in it causes no call).
    func metadataOutput(_ output: CaptureMetadataOutput, didOutput metadataObjects: [MetadataObject], from connection: CaptureConnection)
}
