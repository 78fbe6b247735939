import CaptureKit

/// Finds the device a user named on the command line: by unique ID, else by name
/// (case-insensitive), else the default for the media type.
enum DeviceLookup {
    static func find(_ name: String?, mediaType: MediaType) throws(CaptureError) -> CaptureDevice {
        let candidates = CaptureDevice.allDevices.filter { $0.hasMediaType(mediaType) }
        guard let name else {
            guard let device = CaptureDevice.default(for: mediaType) else {
                throw CaptureError(.deviceNotFound, "no \(mediaType) device is present")
            }
            return device
        }
        if let device = candidates.first(where: { $0.uniqueID == name })
            ?? candidates.first(where: { $0.localizedName.lowercased() == name.lowercased() }) {
            return device
        }
        let known = candidates.map { "'\($0.uniqueID)'" }.joined(separator: ", ")
        throw CaptureError(.deviceNotFound, "no \(mediaType) device '\(name)' (present: \(known))")
    }
}
