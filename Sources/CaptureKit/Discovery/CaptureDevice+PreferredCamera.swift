import Synchronization

extension CaptureDevice {
    private static let userPreferred = Mutex<CaptureDevice?>(nil)

    /// The camera the user last chose (`userPreferredCamera`), kept for this process. Apps set
    /// it when the user picks a camera; ``systemPreferredCamera`` follows it.
    public static var userPreferredCamera: CaptureDevice? {
        get { userPreferred.withLock { $0 } }
        set { userPreferred.withLock { $0 = newValue } }
    }

    /// The camera to use now (`systemPreferredCamera`): the user's preferred camera while it is
    /// connected and listed, otherwise the default camera (``default(for:)``). Linux has no system-wide
    /// choice of camera, so this is the process's.
    public static var systemPreferredCamera: CaptureDevice? {
        if let preferred = userPreferredCamera, preferred.isConnected, device(uniqueID: preferred.uniqueID) != nil { return preferred }
        return CaptureDevice.default(for: .video)
    }
}
