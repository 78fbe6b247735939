extension CaptureSession {
    // MARK: Configuration transactions

    /// Opens a configuration block; changes wait for the matching ``commitConfiguration()``.
    /// Blocks nest: only the outermost commit applies.
    public func beginConfiguration() {
        model.withLock { $0.configurationDepth += 1 }
    }

    /// Closes a configuration block and, for the outermost one, applies every change at once.
    /// When the changes cannot be applied (a preset the camera cannot do, a device that fails
    /// to start), nothing of them is applied: the session keeps running as before and the
    /// staged changes are rolled back. Throws `.invalidState` without an open block.
    public func commitConfiguration() throws(CaptureError) {
        let outermost = try model.withLock { (model) throws(CaptureError) -> Bool in
            guard model.configurationDepth > 0 else {
                throw .invalidState("commitConfiguration() without beginConfiguration()")
            }
            model.configurationDepth -= 1
            return model.configurationDepth == 0
        }
        if outermost { try onControl { () throws(CaptureError) in try apply() } }
    }

    /// Runs `body` inside a configuration block and commits it, whatever happens: the safe form
    /// of ``beginConfiguration()`` / ``commitConfiguration()``. With the pair, a `try` that
    /// throws between them leaves the block open, and every later `startRunning()` fails;
    /// here the block is always closed. When `body` throws, what it staged before the error is
    /// committed (as the pair with a `defer` would) and `body`'s error is rethrown; otherwise
    /// commit's `CaptureError`, if any, is thrown (commit then applies nothing). Blocks nest,
    /// as the pair does.
    ///
    /// ```swift
    /// try session.configure {
    ///     session.sessionPreset = .hd1280x720
    ///     try session.addInput(CaptureDeviceInput(device: camera))
    ///     try session.addOutput(movieOutput)
    /// }
    /// ```
    ///
    /// Its errors are untyped because `body` is the caller's code: Swift 6 gives a closure
    /// without a `throws(CaptureError)` annotation the type `throws`, so a typed parameter
    /// would refuse the closure above. A body that calls only CaptureKit throws `CaptureError`s.
    public func configure<Value>(_ body: () throws -> Value) throws -> Value {
        beginConfiguration()
        let result = Result { try body() }
        do throws(CaptureError) {
            try commitConfiguration()
        } catch {
            if case .failure(let bodyError) = result { throw bodyError }
            throw error
        }
        return try result.get()
    }

    /// Runs `change` inside its own transaction unless a block is already open.
    private func staging(_ change: (inout Graph) throws(CaptureError) -> Void) throws(CaptureError) {
        let immediate = try model.withLock { (model) throws(CaptureError) -> Bool in
            try change(&model.staged)
            return model.configurationDepth == 0
        }
        if immediate { try onControl { () throws(CaptureError) in try apply() } }
    }

    // MARK: Preset

    /// The preset in force (or staged). Setting it is `setSessionPreset(_:)` for code written
    /// as on AVFoundation (`session.sessionPreset = .high`): a preset the session's camera
    /// cannot do is not set — the session keeps the preset it had, as AVFoundation refuses it
    /// too (with an exception there) — and the error is posted as a `.runtimeError` event.
    /// Ask ``canSetSessionPreset(_:)`` first, or call ``setSessionPreset(_:)`` to get the error.
    public var sessionPreset: Preset {
        get { model.withLock { $0.staged.preset } }
        set {
            do throws(CaptureError) { try setSessionPreset(newValue) } catch { eventHub.post(.runtimeError(error)) }
        }
    }

    /// Whether the session's camera can do `preset` (`canSetSessionPreset(_:)`). True when
    /// there is no camera yet, as on AVFoundation: a camera added later must then be able to do
    /// the preset, or ``canAddInput(_:)`` says no.
    public func canSetSessionPreset(_ preset: Preset) -> Bool {
        if takesSeveralCameras { return preset == .inputPriority }
        guard let device = videoDevice(in: model.withLock({ $0.staged })) else { return true }
        return Self.supports(device, preset)
    }

    /// Sets the preset; `.unsupportedPreset` when the session's camera cannot do it.
    public func setSessionPreset(_ preset: Preset) throws(CaptureError) {
        try staging { (graph) throws(CaptureError) in
            if takesSeveralCameras, preset != .inputPriority {
                throw CaptureError(.unsupportedPreset, "a multi-camera session takes each camera's own format (lock the device and set "
                                   + "activeFormat); its only preset is inputPriority, not \(preset.rawValue)")
            }
            if let device = videoDevice(in: graph), !Self.supports(device, preset) {
                throw CaptureError(.unsupportedPreset, "\(device.localizedName) has no format for preset \(preset.rawValue)",
                                   deviceID: device.uniqueID)
            }
            graph.preset = preset
        }
    }

    /// Whether `device` can capture with `preset`: `.inputPriority` leaves the format alone, so
    /// every device can.
    private static func supports(_ device: CaptureDevice, _ preset: Preset) -> Bool {
        preset == .inputPriority || bestFormat(for: preset, among: device.formats) != nil
    }

    // MARK: Inputs

    /// Whether `input` can be added: not already added, no other input of the same media (one
    /// camera and one microphone per session), and, for a camera, able to do the session's
    /// preset — as on AVFoundation, where a preset set before any camera (say
    /// `.hd4K3840x2160`) makes `canAddInput` refuse a camera without such frames. What this
    /// accepts, ``commitConfiguration()`` accepts.
    public func canAddInput(_ input: CaptureInput) -> Bool {
        model.withLock { problem(adding: input, to: $0.staged) == nil }
    }

    /// Adds an input; throws what ``canAddInput(_:)`` refuses: `.unsupportedPreset` for a camera
    /// that cannot do the session's preset, `.cannotAddInput` otherwise. Outputs added without
    /// ``addOutputWithNoConnections(_:)`` take their media from the first input offering it.
    public func addInput(_ input: CaptureInput) throws(CaptureError) {
        try add(input, linked: true)
    }

    /// Adds an input that no output takes until a connection made with ``addConnection(_:)``
    /// says so (`addInputWithNoConnections(_:)`): how a ``CaptureMultiCamSession`` gets
    /// several cameras without every output taking the first. Throws what ``addInput(_:)`` throws.
    public func addInputWithNoConnections(_ input: CaptureInput) throws(CaptureError) {
        try add(input, linked: false)
    }

    private func add(_ input: CaptureInput, linked: Bool) throws(CaptureError) {
        try staging { (graph) throws(CaptureError) in
            if let problem = problem(adding: input, to: graph) { throw problem }
            graph.inputs.append(input)
            if !linked { graph.unlinked.insert(ObjectIdentifier(input)) }
        }
    }

    /// Removes an input and the manual connections from it; does nothing for an input the
    /// session does not have. A failure to apply the change (rolled back) is posted as a
    /// `.runtimeError` event.
    public func removeInput(_ input: CaptureInput) {
        do {
            try staging { graph in
                graph.inputs.removeAll { $0 === input }
                graph.unlinked.remove(ObjectIdentifier(input))
                graph.manualConnections.removeAll { $0.input === input }
            }
        } catch { eventHub.post(.runtimeError(error)) }
    }

    private func problem(adding input: CaptureInput, to graph: Graph) -> CaptureError? {
        if graph.inputs.contains(where: { $0 === input }) { return CaptureError(.cannotAddInput, "the input is already in the session") }
        let media = Set(input.ports.map(\.mediaType))
        if media.isEmpty { return CaptureError(.cannotAddInput, "the input offers no media") }
        let device = (input as? CaptureDeviceInput)?.device
        if let device, graph.inputs.contains(where: { ($0 as? CaptureDeviceInput)?.device == device }) {
            return CaptureError(.cannotAddInput, "the session already has an input for \(device.localizedName)", deviceID: device.uniqueID)
        }
        if !takesSeveralCameras, let clash = graph.inputs.first(where: { !media.isDisjoint(with: $0.ports.map(\.mediaType)) }) {
            let name = (clash as? CaptureDeviceInput)?.device.localizedName ?? "another input"
            return CaptureError(.cannotAddInput,
                                "the session already has an input for \(media.map(\.rawValue).sorted().joined(separator: "/")) (\(name)); remove it "
                                + "first, or use a CaptureMultiCamSession for several")
        }
        if let camera = device, camera.hasMediaType(.video), !Self.supports(camera, graph.preset) {
            return CaptureError(.unsupportedPreset,
                                "\(camera.localizedName) has no format for the session's preset \(graph.preset.rawValue); set one it can do first",
                                deviceID: camera.uniqueID)
        }
        return nil
    }

    // MARK: Outputs

    /// Whether `output` can be added: not in this or another session.
    public func canAddOutput(_ output: CaptureOutput) -> Bool {
        model.withLock { Self.problem(adding: output, to: $0.staged, session: self) == nil }
    }

    /// Adds an output; `.cannotAddOutput` says why it cannot be. It takes each media it accepts
    /// from the first input offering it that was not added with ``addInputWithNoConnections(_:)``.
    public func addOutput(_ output: CaptureOutput) throws(CaptureError) {
        try add(output, linked: true)
    }

    /// Adds an output that takes media only through connections made with ``addConnection(_:)``
    /// (`addOutputWithNoConnections(_:)`). Throws what ``addOutput(_:)`` throws.
    public func addOutputWithNoConnections(_ output: CaptureOutput) throws(CaptureError) {
        try add(output, linked: false)
    }

    private func add(_ output: CaptureOutput, linked: Bool) throws(CaptureError) {
        try staging { (graph) throws(CaptureError) in
            if let problem = Self.problem(adding: output, to: graph, session: self) {
                throw CaptureError(.cannotAddOutput, problem)
            }
            // Reserved when staged, so no other session can take it before the commit.
            guard output.reserve(for: self) else {
                throw CaptureError(.cannotAddOutput, "the output belongs to another session; remove it there first")
            }
            graph.outputs.append(output)
            if !linked { graph.unlinked.insert(ObjectIdentifier(output)) }
        }
    }

    /// Removes an output and the manual connections to it; does nothing for an output the
    /// session does not have. A failure to apply the change (rolled back) is posted as a
    /// `.runtimeError` event.
    public func removeOutput(_ output: CaptureOutput) {
        do {
            try staging { graph in
                graph.outputs.removeAll { $0 === output }
                graph.unlinked.remove(ObjectIdentifier(output))
                graph.manualConnections.removeAll { $0.output === output }
            }
        } catch { eventHub.post(.runtimeError(error)) }
        // Never committed: free it for other sessions at once.
        if !model.withLock({ $0.committed.outputs.contains { $0 === output } || $0.staged.outputs.contains { $0 === output } }) {
            output.attach(to: nil)
        }
    }

    /// Drops the staged changes after a failed commit, freeing outputs reserved by them.
    private func rollBack(to committed: Graph, from staged: Graph) {
        model.withLock { $0.staged = committed }
        for output in staged.outputs where !committed.outputs.contains(where: { $0 === output }) {
            output.attach(to: nil)
        }
    }

    private static func problem(adding output: CaptureOutput, to graph: Graph, session: CaptureSession) -> String? {
        if graph.outputs.contains(where: { $0 === output }) { return "the output is already in the session" }
        if let owner = output.session, owner !== session { return "the output belongs to another session; remove it there first" }
        return nil
    }

    // MARK: Manual connections

    /// Whether ``addConnection(_:)`` would take `connection`.
    public func canAddConnection(_ connection: CaptureConnection) -> Bool {
        model.withLock { Self.problem(adding: connection, to: $0.staged) == nil }
    }

    /// Adds a connection made with ``CaptureConnection/init(inputPorts:output:)``
    /// (`addConnection(_:)`): its input and output must be in the session, the output must
    /// take its media and have no other connection for it; `.cannotAddConnection` says which
    /// of these fails.
    public func addConnection(_ connection: CaptureConnection) throws(CaptureError) {
        try staging { (graph) throws(CaptureError) in
            if let problem = Self.problem(adding: connection, to: graph) { throw CaptureError(.cannotAddConnection, problem) }
            graph.manualConnections.append(connection)
        }
    }

    /// Removes a connection added with ``addConnection(_:)`` (`removeConnection(_:)`); nothing
    /// for another. A failure to apply the change (rolled back) is posted as a `.runtimeError`.
    public func removeConnection(_ connection: CaptureConnection) {
        do { try staging { $0.manualConnections.removeAll { $0 === connection } } } catch { eventHub.post(.runtimeError(error)) }
    }

    private static func problem(adding connection: CaptureConnection, to graph: Graph) -> String? {
        guard let output = connection.output, graph.outputs.contains(where: { $0 === output }) else {
            return "the connection's output is not in the session; add it first"
        }
        guard graph.inputs.contains(where: { $0 === connection.input }) else { return "the connection's input is not in the session; add it first" }
        if graph.manualConnections.contains(where: { $0 === connection }) { return "the connection is already in the session" }
        guard output.acceptedMediaTypes.contains(connection.mediaType) else {
            return "\(type(of: output)) takes no \(connection.mediaType.rawValue)"
        }
        let taken = !output.takesSeveralConnections && graph.manualConnections.contains { $0.output === output && $0.mediaType == connection.mediaType }
            || (!graph.unlinked.contains(ObjectIdentifier(output)) && implicitInput(for: connection.mediaType, in: graph) != nil)
        if taken { return "\(type(of: output)) already has a \(connection.mediaType.rawValue) connection; an output takes one camera" }
        return nil
    }

    /// The input an output added with connections takes `mediaType` from.
    private static func implicitInput(for mediaType: MediaType, in graph: Graph) -> CaptureInput? {
        graph.inputs.first { !graph.unlinked.contains(ObjectIdentifier($0)) && $0.port(for: mediaType) != nil }
    }

    // MARK: Applying

    func videoDevice(in graph: Graph) -> CaptureDevice? {
        graph.inputs.compactMap { ($0 as? CaptureDeviceInput)?.device }.first { $0.hasMediaType(.video) }
    }

    /// Makes the staged graph the running one. Runs on the control queue.
    func apply() throws(CaptureError) {
        let (staged, committed, running, oldConnections) = model.withLock { ($0.staged, $0.committed, $0.lifecycle.streamsRun, $0.connections) }

        // 1. Everything that can fail without side effects: the preset's formats, the buses.
        do {
            try checkHardwareCost(of: staged)
        } catch {
            rollBack(to: committed, from: staged)
            throw error
        }
        var formats: [(CaptureDevice, CaptureDevice.Format, MediaTime)] = []
        if staged.preset != .inputPriority, let camera = videoDevice(in: staged) {
            guard let (format, duration) = Self.bestFormat(for: staged.preset, among: camera.formats) else {
                rollBack(to: committed, from: staged)
                throw CaptureError(.unsupportedPreset, "\(camera.localizedName) has no format for preset \(staged.preset.rawValue)",
                                   deviceID: camera.uniqueID)
            }
            formats.append((camera, format, duration))
        }

        // 2. Connections: each output gets one connection per media type it accepts, reusing
        // the existing connection object so its orientation and mirroring survive.
        var connections: [CaptureConnection] = []
        var byOutput: [ObjectIdentifier: [CaptureConnection]] = [:]
        for output in staged.outputs {
            if !staged.unlinked.contains(ObjectIdentifier(output)) {
                for mediaType in MediaType.allCases where output.acceptedMediaTypes.contains(mediaType) {
                    guard let input = Self.implicitInput(for: mediaType, in: staged), let port = input.port(for: mediaType) else { continue }
                    let connection = oldConnections.first { $0.input === input && $0.output === output && $0.mediaType == mediaType }
                        ?? CaptureConnection(port: port, output: output)
                    connections.append(connection)
                    byOutput[ObjectIdentifier(output), default: []].append(connection)
                }
            }
            for connection in staged.manualConnections where connection.output === output {
                connections.append(connection)
                byOutput[ObjectIdentifier(output), default: []].append(connection)
            }
        }

        // 3. Device formats, then streams when running.
        let previousFormats = formats.map { ($0.0, $0.0.streamConfiguration) }
        for (device, format, duration) in formats { device.applyPresetFormat(format, frameDuration: duration) }
        if running {
            do {
                try restreamDevices(for: staged, connections: connections)
            } catch {
                for (device, old) in previousFormats { device.applyPresetFormat(old.format, frameDuration: old.frameDuration) }
                rollBack(to: committed, from: staged)
                do { try restreamDevices(for: committed, connections: oldConnections) } catch { eventHub.post(.runtimeError(error)) }
                throw error
            }
        } else {
            updateRoutes(connections)
        }

        // 4. Publish.
        if staged.outputs.contains(where: \.encodes) { FFmpeg.prepareInBackground() }
        for output in committed.outputs where !staged.outputs.contains(where: { $0 === output }) {
            output.setConnections([])
            output.attach(to: nil)
        }
        for output in staged.outputs {
            output.attach(to: self)
            output.setConnections(byOutput[ObjectIdentifier(output)] ?? [])
        }
        for connection in oldConnections { connection.setActive(false) }
        for connection in connections { connection.setActive(running) }
        let ended = model.withLock { model -> Bool in
            model.committed = staged
            model.connections = connections
            // A lost device that is no longer used no longer interrupts the session.
            return model.lifecycle.inputsChanged(to: Set(staged.inputs.compactMap { ($0 as? CaptureDeviceInput)?.device.uniqueID }))
        }
        if ended {
            for output in staged.outputs { output.sessionInterruptionEnded() }
            eventHub.post(.interruptionEnded)
        }
        observeDevices(of: staged, previous: committed)
    }

    /// Keeps the session told when someone changes a device's settings directly.
    private func observeDevices(of graph: Graph, previous: Graph) {
        let devices = graph.inputs.compactMap { ($0 as? CaptureDeviceInput)?.device }
        for device in previous.inputs.compactMap({ ($0 as? CaptureDeviceInput)?.device }) where !devices.contains(device) {
            device.observeSettings(for: self, nil)
        }
        for device in devices {
            device.observeSettings(for: self) { [weak self] in
                guard let self else { return }
                control.async { [weak self] in self?.deviceSettingsChanged(device) }
            }
        }
    }

    /// A device's format was changed by its owner: switch to `.inputPriority` as AVFoundation
    /// does, and restart its stream when running.
    private func deviceSettingsChanged(_ device: CaptureDevice) {
        model.withLock {
            $0.staged.preset = .inputPriority
            if $0.configurationDepth == 0 { $0.committed.preset = .inputPriority }
        }
        let (graph, connections, running) = model.withLock { ($0.committed, $0.connections, $0.lifecycle.streamsRun) }
        guard running else { return }
        do {
            try restreamDevices(for: graph, connections: connections)
        } catch {
            eventHub.post(.runtimeError(error))
        }
    }
}
