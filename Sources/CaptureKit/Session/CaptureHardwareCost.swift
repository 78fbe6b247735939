import Foundation

/// What the formats chosen for a set of cameras ask of the buses they share
/// (`AVCaptureMultiCamSession.hardwareCost`, with the reasons): each USB camera streams
/// isochronously, and one bus carries only so much. ``cost`` above 1 does not fit: the
/// cameras would refuse to start (uvcvideo's `ENOSPC`), so a ``CaptureMultiCamSession``
/// refuses it first and ``problem`` says which bus and cameras, and what to change.
///
/// What a camera needs: uncompressed frames their size in bytes times the frame rate; MJPEG and
/// H.264 an estimate, a fifth of the same picture as YUYV (what webcams' JPEGs at their usual
/// quality take). A camera may reserve more than its frames need; when it reserves more than is
/// left, starting it fails with `.insufficientBandwidth` all the same.
public struct CaptureHardwareCost: Sendable, CustomStringConvertible {
    /// One camera's share of its bus.
    public struct Demand: Sendable {
        /// The camera's unique ID.
        public let deviceID: String
        /// The camera's name.
        public let deviceName: String
        /// The bus it is on.
        public let bus: CaptureDevice.Bus
        /// The format it streams.
        public let format: CaptureDevice.Format
        /// Its frame rate.
        public let frameRate: Double
        /// What it needs of the bus, in bytes per second.
        public let bytesPerSecond: Int
        /// Whether the camera also offers MJPEG at this size (the usual way to fit).
        public let offersMJPEGAtThisSize: Bool
    }

    /// The cameras on a shared bus, in the order given.
    public let demands: [Demand]
    /// The largest share of a bus (or of one camera's endpoint) asked for: 1 is all of it.
    public let cost: Double
    /// Why the formats do not fit together, naming the bus, each camera's need and what to
    /// change; nil when they fit.
    public let problem: String?

    /// The cost of streaming each device with its configuration.
    init(_ devices: [(CaptureDevice, StreamConfiguration)]) {
        demands = devices.compactMap { device, configuration in
            guard let bus = device.bus, configuration.format.mediaType == .video else { return nil }
            let rate = configuration.frameDuration.isNumeric && configuration.frameDuration.seconds > 0
                ? 1 / configuration.frameDuration.seconds : configuration.format.videoSupportedFrameRateRanges.map(\.maxFrameRate).max() ?? 30
            let format = configuration.format
            let mjpeg = device.formats.contains { $0.encoding == .mjpeg && $0.width == format.width && $0.height == format.height }
            return Demand(deviceID: device.uniqueID, deviceName: device.localizedName, bus: bus, format: format, frameRate: rate,
                          bytesPerSecond: Int(Double(Self.bytesPerFrame(format)) * rate), offersMJPEGAtThisSize: mjpeg)
        }
        var worst = 0.0
        var problems: [String] = []
        for bus in Self.buses(of: demands) {
            let sharing = demands.filter { $0.bus == bus }
            let total = sharing.reduce(0) { $0 + $1.bytesPerSecond }
            worst = max(worst, Double(total) / Double(bus.speed.busBytesPerSecond))
            for demand in sharing {
                worst = max(worst, Double(demand.bytesPerSecond) / Double(bus.speed.endpointBytesPerSecond))
            }
            let overEndpoint = sharing.filter { $0.bytesPerSecond > bus.speed.endpointBytesPerSecond }
            guard total > bus.speed.busBytesPerSecond || !overEndpoint.isEmpty else { continue }
            let needs = sharing.map { "\($0.deviceName) \(Self.describe($0)) needs \(Self.megabytes($0.bytesPerSecond))" }
            let capacity = overEndpoint.isEmpty
                ? "carries \(Self.megabytes(bus.speed.busBytesPerSecond)) for all its cameras"
                : "carries at most \(Self.megabytes(bus.speed.endpointBytesPerSecond)) for one camera"
            let remedies = sharing.filter { $0.offersMJPEGAtThisSize && $0.format.encoding == .uncompressed }.map(\.deviceName)
            let remedy = remedies.isEmpty ? "choose smaller sizes or lower frame rates, or plug a camera into another USB port"
                : "choose MJPEG for \(remedies.joined(separator: " and ")) (offered at the same size), a smaller size, or another USB port"
            problems.append("\(bus) \(capacity); \(needs.joined(separator: ", ")): \(remedy)")
        }
        cost = worst
        problem = problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    public var description: String {
        String(format: "hardware cost %.2f", cost) + (problem.map { ": \($0)" } ?? "")
    }

    /// The bytes one frame takes on the bus.
    static func bytesPerFrame(_ format: CaptureDevice.Format) -> Int {
        let yuyv = format.width * format.height * 2
        guard format.encoding == .uncompressed, let pixelFormat = format.pixelFormat else { return yuyv / 5 }
        return pixelFormat.planeLayouts.reduce(0) { sum, layout in
            let groups = (format.width + layout.pixelsPerGroup - 1) / layout.pixelsPerGroup
            return sum + groups * layout.bytesPerGroup * ((format.height + layout.verticalSubsampling - 1) / layout.verticalSubsampling)
        }
    }

    private static func buses(of demands: [Demand]) -> [CaptureDevice.Bus] {
        var seen: [CaptureDevice.Bus] = []
        for demand in demands where !seen.contains(demand.bus) { seen.append(demand.bus) }
        return seen
    }

    private static func describe(_ demand: Demand) -> String {
        let coding = demand.format.fourCC ?? (demand.format.encoding == .uncompressed ? "\(demand.format.pixelFormat.map { "\($0)" } ?? "raw")" : demand.format.encoding.rawValue)
        return "\(demand.format.width)x\(demand.format.height) \(coding) at \(String(format: "%g", demand.frameRate)) fps"
    }

    private static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB/s", Double(bytes) / 1_000_000) }
}
