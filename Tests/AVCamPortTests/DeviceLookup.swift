import CaptureKit

// AVCam's DeviceLookup, ported with the renames in Sources/CaptureKit/CaptureKit.docc/PortingFromAVFoundation.md.

/// Finds the cameras and the microphone the service uses.
final class DeviceLookup {
    private let frontCameraDiscoverySession: CaptureDevice.DiscoverySession
    private let backCameraDiscoverySession: CaptureDevice.DiscoverySession
    private let externalCameraDiscoverSession: CaptureDevice.DiscoverySession

    init() {
        backCameraDiscoverySession = CaptureDevice.DiscoverySession(deviceTypes: [.builtInDualCamera, .builtInWideAngleCamera],
                                                                    mediaType: .video,
                                                                    position: .back)
        frontCameraDiscoverySession = CaptureDevice.DiscoverySession(deviceTypes: [.builtInTrueDepthCamera, .builtInWideAngleCamera],
                                                                     mediaType: .video,
                                                                     position: .front)
        externalCameraDiscoverSession = CaptureDevice.DiscoverySession(deviceTypes: [.external],
                                                                       mediaType: .video,
                                                                       position: .unspecified)
        // With no preferred camera yet, start from the back one.
        if CaptureDevice.systemPreferredCamera == nil {
            CaptureDevice.userPreferredCamera = backCameraDiscoverySession.devices.first
        }
    }

    /// The camera to start with.
    var defaultCamera: CaptureDevice {
        get throws {
            guard let videoDevice = CaptureDevice.systemPreferredCamera else {
                throw CameraError.videoDeviceUnavailable
            }
            return videoDevice
        }
    }

    /// The microphone to record with.
    var defaultMic: CaptureDevice {
        get throws {
            guard let audioDevice = CaptureDevice.default(for: .audio) else {
                throw CameraError.audioDeviceUnavailable
            }
            return audioDevice
        }
    }

    var cameras: [CaptureDevice] {
        var cameras: [CaptureDevice] = []
        if let backCamera = backCameraDiscoverySession.devices.first {
            cameras.append(backCamera)
        }
        if let frontCamera = frontCameraDiscoverySession.devices.first {
            cameras.append(frontCamera)
        }
        // A USB camera, where one is plugged in.
        if let externalCamera = externalCameraDiscoverSession.devices.first {
            cameras.append(externalCamera)
        }
        return cameras
    }
}
