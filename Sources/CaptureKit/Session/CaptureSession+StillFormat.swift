extension CaptureSession {
    /// Streams `device` in `format` while `body` runs, then puts the device's previous format
    /// and frame rate back. Two steps on the control queue, with `body` (which waits for the
    /// photo's frame) between them and off the queue, so configuration calls and device events
    /// are not held up behind a photo. Other outputs of the device see frames of the larger size
    /// meanwhile.
    ///
    /// The format is applied as a preset applies one (observers are not told, the preset
    /// stays), so after the shot the session is exactly as before — except that a maximum frame
    /// duration set apart from the minimum comes back equal to it. When the device's format was
    /// changed by someone else during `body` (a configuration commit, the app's own
    /// `lockForConfiguration`), that change stays; when the session stopped meanwhile, the
    /// previous format is put back for the next start.
    func streamingStillFormat(_ format: CaptureDevice.Format, on device: CaptureDevice,
                              _ body: () -> Void) throws(CaptureError) {
        let (previous, switched) = try onControl { () throws(CaptureError) -> (StreamConfiguration, StreamConfiguration) in
            let (state, graph, connections) = model.withLock { ($0.lifecycle.state, $0.committed, $0.connections) }
            guard state == .running else {
                throw .invalidState("the session is \(state.rawValue): the photo's format switch needs it running")
            }
            guard graph.inputs.contains(where: { ($0 as? CaptureDeviceInput)?.device == device }) else {
                throw .invalidState("\(device.localizedName) is no longer an input of the session")
            }
            let previous = device.streamConfiguration
            device.applyPresetFormat(format, frameDuration: format.nearestFrameDuration(to: previous.frameDuration), servesStills: true)
            do throws(CaptureError) {
                try restreamDevices(for: graph, connections: connections)
            } catch {
                restore(previous, on: device)
                throw error
            }
            return (previous, device.streamConfiguration)
        }
        body()
        control.sync {
            guard device.streamConfiguration == switched else { return }
            restore(previous, on: device)
        }
    }

    /// Puts `configuration` back on `device` and, when the session is capturing, restarts the
    /// streams to match. Runs on the control queue.
    private func restore(_ configuration: StreamConfiguration, on device: CaptureDevice) {
        device.applyPresetFormat(configuration.format, frameDuration: configuration.frameDuration)
        let (streamsRun, graph, connections) = model.withLock { ($0.lifecycle.streamsRun, $0.committed, $0.connections) }
        guard streamsRun else { return }
        do throws(CaptureError) {
            try restreamDevices(for: graph, connections: connections)
        } catch {
            reportRuntimeError(error)
        }
    }
}
