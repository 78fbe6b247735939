import Foundation

/// A barcode or QR code found in a video frame (`AVMetadataMachineReadableCodeObject`).
///
/// The same code seen in consecutive frames is reported once per frame, always with the same
/// ``objectID``, until it leaves the picture; a code that comes back later gets a new one.
///
/// ```swift
/// let output = CaptureMetadataOutput()
/// for await objects in output.metadataObjects {
///     for case let code as MachineReadableCodeObject in objects {
///         print(code.objectID, code.type, code.stringValue ?? "<binary>", code.corners)
///     }
/// }
/// ```
public final class MachineReadableCodeObject: MetadataObject, @unchecked Sendable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    /// The decoded text: the payload as UTF-8, or as ISO 8859-1 (QR's default character set)
    /// when it is not valid UTF-8. Digits of EAN/UPC codes include the check digit.
    public let stringValue: String?
    /// The decoded payload bytes exactly as the code carries them (for QR codes in byte mode,
    /// what `stringValue` was made from, without any character-set guess).
    public let data: [UInt8]
    /// The code's own corners as printed — top-left, top-right, bottom-right, bottom-left of the
    /// code in its reading direction — in metadata coordinates. For QR codes these are the
    /// symbol's outer corners; for barcodes the corners of the scanned bar area.
    public let corners: [CGPoint]
    /// Identifies this code while it stays in the picture: equal in every frame that shows it.
    public let objectID: Int

    init(type: ObjectType, bounds: CGRect, corners: [CGPoint], stringValue: String?, data: [UInt8], objectID: Int,
         time: MediaTime, duration: MediaTime) {
        self.stringValue = stringValue
        self.data = data
        self.corners = corners
        self.objectID = objectID
        super.init(type: type, bounds: bounds, time: time, duration: duration)
    }

    /// The type, identity, text and bounds, as `#3 qr "hello" (0.100, 0.200, 0.300, 0.400)`.
    public override var description: String {
        "#\(objectID) \(type.rawValue) \"\(stringValue ?? "")\" " + String(format: "(%.3f, %.3f, %.3f, %.3f)", bounds.minX, bounds.minY, bounds.width, bounds.height)
    }
}
