/// A source of media for a session (`AVCaptureInput`). The one kind today is
/// ``CaptureDeviceInput``.
public class CaptureInput: @unchecked Sendable, Hashable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    /// One stream of media an input offers (`AVCaptureInput.Port`).
    public struct Port: Sendable, Hashable {
        /// What the port carries.
        public let mediaType: MediaType
        /// The device the port belongs to, by unique ID.
        public let sourceDeviceID: String
        /// The input the port belongs to (`AVCaptureInput.Port.input`).
        public let input: CaptureInput

        public static func == (lhs: Port, rhs: Port) -> Bool {
            lhs.mediaType == rhs.mediaType && lhs.sourceDeviceID == rhs.sourceDeviceID && lhs.input === rhs.input
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(mediaType)
            hasher.combine(sourceDeviceID)
            hasher.combine(ObjectIdentifier(input))
        }
    }

    /// The streams the input offers.
    public var ports: [Port] { [] }

    /// The input's port carrying `mediaType`, if it has one: what a manual
    /// ``CaptureConnection/init(inputPorts:output:)`` takes.
    public func port(for mediaType: MediaType) -> Port? { ports.first { $0.mediaType == mediaType } }

    init() {}

    public static func == (lhs: CaptureInput, rhs: CaptureInput) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Feeds a device into a session (`AVCaptureDeviceInput`).
///
/// ```swift
/// let input = try CaptureDeviceInput(device: camera)
/// if session.canAddInput(input) { try session.addInput(input) }
/// ```
public final class CaptureDeviceInput: CaptureInput, @unchecked Sendable {
    // Unchecked Sendable: an AVFoundation-shaped class hierarchy (not final), so unverifiable; its state is behind locks or immutable.
    /// The device.
    public let device: CaptureDevice

    /// An input for `device`; `.deviceDisconnected` when it is not present, `.notAuthorized`
    /// when this user may not open cameras.
    public init(device: CaptureDevice) throws(CaptureError) {
        guard device.isConnected else {
            throw CaptureError(.deviceDisconnected, "\(device.localizedName) is not connected", deviceID: device.uniqueID)
        }
        if device.hasMediaType(.video), !device.isVirtual, CaptureDevice.authorizationStatus(for: .video) == .denied {
            throw CaptureError(.notAuthorized, "this user may not open cameras: add it to the 'video' group", deviceID: device.uniqueID)
        }
        self.device = device
        super.init()
    }

    public override var ports: [Port] {
        MediaType.allCases.filter(device.hasMediaType).map { Port(mediaType: $0, sourceDeviceID: device.uniqueID, input: self) }
    }
}
