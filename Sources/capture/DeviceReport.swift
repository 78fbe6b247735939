import CaptureKit

/// A device and its formats as `capture devices --json` and `capture formats --json` print them.
struct DeviceReport: Encodable {
    struct Format: Encodable {
        var mediaType: String
        var pixelFormat: String?
        var fourCC: String?
        var width: Int?
        var height: Int?
        var frameRates: [Double]?
        var sampleRate: Int?
        var channels: Int?
        var sampleFormat: String?
        var active: Bool
    }

    var uniqueID: String
    var name: String
    var mediaType: String
    var deviceType: String
    var position: String
    var modelID: String
    var manufacturer: String
    var connected: Bool
    /// The USB bus whose bandwidth the camera shares ("usb2 (USB 2)"), nil when on none.
    var bus: String?
    var formats: [Format]

    init(_ device: CaptureDevice) {
        uniqueID = device.uniqueID
        name = device.localizedName
        mediaType = MediaType.allCases.first(where: device.hasMediaType)?.rawValue ?? "none"
        deviceType = device.deviceType.rawValue
        position = device.position.rawValue
        modelID = device.modelID
        manufacturer = device.manufacturer
        connected = device.isConnected
        bus = device.bus?.description
        let active = device.activeFormat
        formats = device.formats.map { format in
            Format(mediaType: format.mediaType.rawValue,
                   pixelFormat: format.pixelFormat?.rawValue,
                   fourCC: format.fourCC,
                   width: format.mediaType == .video ? format.width : nil,
                   height: format.mediaType == .video ? format.height : nil,
                   frameRates: format.mediaType == .video ? format.videoSupportedFrameRateRanges.map(\.maxFrameRate) : nil,
                   sampleRate: format.audioFormat?.sampleRate,
                   channels: format.audioFormat?.channelCount,
                   sampleFormat: format.audioFormat?.sampleFormat.rawValue,
                   active: format == active)
        }
    }
}
