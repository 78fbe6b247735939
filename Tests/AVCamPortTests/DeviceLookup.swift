import CaptureKit

// AVCam's DeviceLookup, ported with the renames in docs/porting-from-avfoundation.md.

/// Finds the cameras and microphones the app can use.
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
        // If the host doesn't currently define a system-preferred camera, set the user's preferred selection to the back camera.
        if CaptureDevice.systemPreferredCamera == nil {
            CaptureDevice.userPreferredCamera = backCameraDiscoverySession.devices.first
        }
    }

    /// Returns the system-preferred camera for the host system.
    var defaultCamera: CaptureDevice {
        get throws {
            guard let videoDevice = CaptureDevice.systemPreferredCamera else {
                throw CameraError.videoDeviceUnavailable
            }
            return videoDevice
        }
    }

    /// Returns the default microphone for the device on which the app runs.
    var defaultMic: CaptureDevice {
        get throws {
            guard let audioDevice = CaptureDevice.default(for: .audio) else {
                throw CameraError.audioDeviceUnavailable
            }
            return audioDevice
        }
    }

    var cameras: [CaptureDevice] {
        // Populate the cameras array with the available cameras.
        var cameras: [CaptureDevice] = []
        if let backCamera = backCameraDiscoverySession.devices.first {
            cameras.append(backCamera)
        }
        if let frontCamera = frontCameraDiscoverySession.devices.first {
            cameras.append(frontCamera)
        }
        // iPadOS supports connecting external cameras.
        if let externalCamera = externalCameraDiscoverSession.devices.first {
            cameras.append(externalCamera)
        }
        return cameras
    }
}
