extension CaptureSession {
    /// Streams `device` in `format` while `body` runs, then puts the device's previous format
    /// and frame rate back. Everything happens on the control queue, so no configuration change
    /// or stop can slip in between; `body` waits for the photo's frame and must not call back
    /// into the session. Other outputs of the device see frames of the larger size meanwhile.
    ///
    /// The format is applied as a preset applies one (observers are not told, the preset
    /// stays), so after the shot the session is exactly as before — except that a maximum frame
    /// duration set apart from the minimum comes back equal to it.
    func streamingStillFormat(_ format: CaptureDevice.Format, on device: CaptureDevice,
                              _ body: () -> Void) throws(CaptureError) {
        try onControl { () throws(CaptureError) in
            let (state, graph, connections) = model.withLock { ($0.state, $0.committed, $0.connections) }
            guard state == .running else {
                throw .invalidState("the session is \(state.rawValue): the photo's format switch needs it running")
            }
            guard graph.inputs.contains(where: { ($0 as? CaptureDeviceInput)?.device == device }) else {
                throw .invalidState("\(device.localizedName) is no longer an input of the session")
            }
            let previous = device.streamConfiguration
            device.applyPresetFormat(format, frameDuration: format.nearestFrameDuration(to: previous.frameDuration))
            defer {
                device.applyPresetFormat(previous.format, frameDuration: previous.frameDuration)
                do throws(CaptureError) {
                    try restreamDevices(for: graph, connections: connections)
                } catch {
                    reportRuntimeError(error)
                }
            }
            try restreamDevices(for: graph, connections: connections)
            body()
        }
    }
}
