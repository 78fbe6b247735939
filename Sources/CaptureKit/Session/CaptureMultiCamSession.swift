/// A session with several cameras (and microphones) at once (`AVCaptureMultiCamSession`): a
/// stereo rig, front and rear cameras of a robot, a doorbell and its package camera.
///
/// Inputs are added with ``CaptureSession/addInputWithNoConnections(_:)`` and outputs with
/// ``CaptureSession/addOutputWithNoConnections(_:)``; each ``CaptureConnection`` added with
/// ``CaptureSession/addConnection(_:)`` then says which camera an output takes. Every output
/// works on any camera. Each camera keeps its own format (lock it and set `activeFormat`): the
/// session's only preset is `.inputPriority`. All cameras' frames carry times of the one
/// monotonic clock, so ``CaptureDataOutputSynchronizer`` can pair them.
///
/// ```swift
/// func startTwoCameras(_ front: CaptureDevice, _ rear: CaptureDevice) async throws -> [CaptureVideoDataOutput] {
///     let session = CaptureMultiCamSession()
///     var outputs: [CaptureVideoDataOutput] = []
///     try session.configure {
///         for camera in [front, rear] {
///             let input = try CaptureDeviceInput(device: camera)
///             let output = CaptureVideoDataOutput()
///             try session.addInputWithNoConnections(input)
///             try session.addOutputWithNoConnections(output)
///             try session.addConnection(CaptureConnection(inputPorts: [input.port(for: .video)!], output: output))
///             outputs.append(output)
///         }
///     }
///     print(session.hardwareCost)       // ≤ 1: the formats fit on the cameras' buses
///     try await session.start()
///     return outputs
/// }
/// ```
///
/// Before a configuration is committed, and again before streams start, the session adds up
/// what the cameras' formats ask of the USB buses they share (``hardwareCostReport``): a
/// combination that cannot fit — two USB 2 cameras both at uncompressed 1080p — is refused
/// with `.insufficientBandwidth`, naming the bus, what each camera needs and what to change,
/// instead of one camera failing to start. A camera lost mid-session interrupts only the
/// outputs it feeds; the others keep recording.
public final class CaptureMultiCamSession: CaptureSession, @unchecked Sendable {
    // Unchecked Sendable: a subclass of the (non-final) CaptureSession and no state of its own.
    /// Whether this machine can run several cameras in one session: always true on Linux,
    /// where each camera is its own device (`isMultiCamSupported`).
    public static var isMultiCamSupported: Bool { true }

    /// A new, idle multi-camera session (preset `.inputPriority`).
    public init() {
        super.init(takesSeveralCameras: true)
    }

    /// What the cameras' current formats ask of their buses (`hardwareCost`): at most 1 fits.
    /// Follows the staged configuration and each camera's `activeFormat`.
    public var hardwareCost: Float { Float(hardwareCostReport.cost) }

    /// ``hardwareCost`` with each camera's share and, when over 1, why and what to change.
    public var hardwareCostReport: CaptureHardwareCost { Self.cost(of: model.withLock { $0.staged }) }

    /// What a session needs of its system beyond the buses (`systemPressureCost`): 0, since
    /// Linux reports no thermal or power pressure to applications.
    public var systemPressureCost: Float { 0 }
}

extension CaptureSession {
    /// The buses' cost of streaming the cameras of `graph` as their devices are set.
    static func cost(of graph: Graph) -> CaptureHardwareCost {
        CaptureHardwareCost(graph.inputs.compactMap { ($0 as? CaptureDeviceInput)?.device }.map { ($0, $0.streamConfiguration) })
    }

    /// `.insufficientBandwidth` when a multi-camera `graph` cannot stream as set.
    func checkHardwareCost(of graph: Graph) throws(CaptureError) {
        guard takesSeveralCameras, let problem = Self.cost(of: graph).problem else { return }
        throw CaptureError(.insufficientBandwidth, "the cameras' formats do not fit on their bus: \(problem)")
    }
}
