import Synchronization

extension CaptureSession {
    /// idle → starting → running; nothing for a session already running. Runs on the control queue.
    func performStart() throws(CaptureError) {
        let starting = try model.withLock { (model) throws(CaptureError) -> (Graph, [CaptureConnection])? in
            try model.lifecycle.start(configurationDepth: model.configurationDepth) ? (model.committed, model.connections) : nil
        }
        guard let (graph, connections) = starting else { return }
        do {
            try restreamDevices(for: graph, connections: connections)
        } catch {
            stopAllStreams()
            model.withLock { $0.lifecycle.startFailed() }
            eventHub.post(.runtimeError(error))
            throw error
        }
        for connection in connections { connection.setActive(true) }
        model.withLock { $0.lifecycle.started() }
        eventHub.post(.didStartRunning)
    }

    /// running/interrupted → stopping → idle; nothing for a session that does not run. Runs on
    /// the control queue.
    func performStop() {
        let stopping = model.withLock { model -> ([CaptureConnection], [CaptureOutput])? in
            model.lifecycle.stop() ? (model.connections, model.committed.outputs) : nil
        }
        guard let (connections, outputs) = stopping else { return }
        stopAllStreams()
        for output in outputs { output.sessionDidStopRunning() }
        for connection in connections { connection.setActive(false) }
        model.withLock { $0.lifecycle.stopped() }
        eventHub.post(.didStopRunning)
    }

    private func stopAllStreams() {
        let streams = model.withLock { model -> [ActiveStream] in
            defer { model.streams.removeAll() }
            return Array(model.streams.values)
        }
        for active in streams {
            active.stream.stop()
            active.device.release(for: self)
        }
    }

    /// Brings the device streams in line with `graph`: stops streams no longer wanted or whose
    /// configuration changed, swaps the routes, then starts what is missing. Frames of a device
    /// whose stream is unchanged keep flowing throughout.
    func restreamDevices(for graph: Graph, connections: [CaptureConnection]) throws(CaptureError) {
        try checkHardwareCost(of: graph)
        let devices = graph.inputs.compactMap { ($0 as? CaptureDeviceInput)?.device }
        let wanted = Dictionary(devices.map { ($0.uniqueID, ($0, $0.streamConfiguration)) }, uniquingKeysWith: { first, _ in first })
        let stale = model.withLock { model -> [ActiveStream] in
            // A lost device keeps its stream (the only thing that notices it coming back); a new
            // configuration for it is applied when it reconnects.
            let stale = model.streams.filter { id, active in
                guard let configuration = wanted[id]?.1 else { return true }
                return configuration != active.configuration && !model.lifecycle.lostDevices.contains(id)
            }
            for id in stale.keys { model.streams.removeValue(forKey: id) }
            return Array(stale.values)
        }
        for active in stale {
            active.stream.stop()
            active.device.release(for: self)
        }
        updateRoutes(connections)
        let running = model.withLock { Set($0.streams.keys) }
        for (id, (device, configuration)) in wanted where !running.contains(id) {
            try startStream(device, configuration)
        }
    }

    /// Points each device's route at its connections of the new configuration.
    func updateRoutes(_ connections: [CaptureConnection]) {
        model.withLock { model in
            var byDevice: [String: [CaptureConnection]] = [:]
            for connection in connections {
                guard let id = connection.device?.uniqueID else { continue }
                byDevice[id, default: []].append(connection)
            }
            for (id, route) in model.routes { route.set(byDevice[id] ?? []) }
            for (id, links) in byDevice where model.routes[id] == nil {
                let route = DeviceRoute()
                route.set(links)
                model.routes[id] = route
            }
        }
    }

    private func startStream(_ device: CaptureDevice, _ configuration: StreamConfiguration) throws(CaptureError) {
        try device.claim(for: self)
        let (route, generation) = model.withLock { model -> (DeviceRoute, Int) in
            let route = model.routes[device.uniqueID] ?? DeviceRoute()
            model.routes[device.uniqueID] = route
            model.nextGeneration += 1
            return (route, model.nextGeneration)
        }
        // A returned device the session does not resume must not deliver even until the control
        // queue has stopped its stream: decided on the device thread, before its next sample.
        let held = HeldStream()
        let sink = StreamSink(deliver: { sample in
            guard !held.isHeld else { return }
            route.deliver(sample)
        }, event: { [weak self] event in
            if case .droppedFrames(let count) = event {
                route.deviceDropped(count: count)
                return
            }
            guard let self else { return }
            if case .reconnected = event, !resumesWhenDevicesReturn { held.hold() }
            control.async { [weak self] in self?.handle(event, from: device, generation: generation) }
        }, wantsPixels: { route.wantsPixels })
        let stream: any DeviceStream
        do {
            stream = try device.backend.startStream(configuration, sink: sink)
        } catch {
            device.release(for: self)
            throw error
        }
        model.withLock {
            $0.streams[device.uniqueID] = ActiveStream(stream: stream, configuration: configuration, device: device, generation: generation)
        }
    }

    /// A device's stream reported something. Runs on the control queue.
    private func handle(_ event: DeviceStreamEvent, from device: CaptureDevice, generation: Int) {
        let id = device.uniqueID
        let reason: InterruptionReason = device.hasMediaType(.video)
            ? .videoDeviceNotAvailable(deviceID: id) : .audioDeviceNotAvailable(deviceID: id)
        var restart = false
        var stale: ActiveStream?
        var change: DeviceChange?
        let post = model.withLock { model -> [Event] in
            guard model.streams[id]?.generation == generation else { return [] }
            switch event {
            case .disconnected:
                let action = model.lifecycle.deviceLost(id)
                if model.lifecycle.state == .interrupted { change = .lost }
                return action == .interrupt ? [.wasInterrupted(reason)] : []
            case .reconnected:
                switch model.lifecycle.deviceReturned(id, resumes: model.resumesWhenDevicesReturn) {
                case .stayInterrupted:
                    // Nothing flows until the app stops and starts the session.
                    stale = model.streams.removeValue(forKey: id)
                    return []
                case .resume(let endsInterruption):
                    if model.streams[id]?.configuration != device.streamConfiguration { restart = true }
                    change = .returned
                    return endsInterruption ? [.interruptionEnded] : []
                case .none, .interrupt:
                    return []
                }
            case .cannotResume(let error):
                return [.resumeFailed(deviceID: id, error: error)]
            case .failed(let error):
                return [.runtimeError(error)]
            case .endOfStream:
                // The other devices may still be delivering: keep running, as a camera that
                // stopped sending frames would not stop the session either.
                return [.deviceReachedEnd(deviceID: id)]
            case .droppedFrames:
                return []
            }
        }
        if let stale {
            stale.stream.stop()
            stale.device.release(for: self)
        }
        if restart {
            // The device was reconfigured while it was away.
            let (graph, connections) = model.withLock { ($0.committed, $0.connections) }
            do { try restreamDevices(for: graph, connections: connections) } catch { eventHub.post(.runtimeError(error)) }
        }
        // Outputs hear of a return before the app does, so what they do about it (a movie
        // output's next file) has happened when `.interruptionEnded` arrives. An output hears
        // only of the devices that feed it: with several cameras, the others keep going.
        if let change {
            let (outputs, lost) = model.withLock { ($0.committed.outputs, $0.lifecycle.lostDevices) }
            for output in outputs {
                let feeding = Set(output.connections.compactMap { $0.device?.uniqueID })
                guard feeding.contains(id) else { continue }
                output.deviceFeedingChanged(id, isPresent: change == .returned)
                guard feeding.isDisjoint(with: lost.subtracting([id])) else { continue }
                switch change {
                case .lost: output.sessionWasInterrupted(reason)
                case .returned: output.sessionInterruptionEnded()
                }
            }
        }
        for event in post { eventHub.post(event) }
        if case .failed = event, !post.isEmpty {
            // A stream that died cannot deliver again: stop, as AVFoundation does on runtime errors.
            performStop()
        }
    }
}

/// What happened to a device, for the outputs it feeds.
private enum DeviceChange {
    case lost
    case returned
}

/// Whether a stream's samples are held back (its device returned to a session that does not
/// resume); read per sample on the device thread, so an atomic.
private final class HeldStream: Sendable {
    private let held = Atomic<Bool>(false)
    var isHeld: Bool { held.load(ordering: .relaxed) }
    func hold() { held.store(true, ordering: .relaxed) }
}
