extension CapturePreRollOutput {
    /// Triggers a clip whenever `metadata` (an output of the same session) sees a code, at the
    /// frame it saw it in, with the reason `"code <type>"` (`"code qr"`): a clip for as long as
    /// the code stays in view, plus the post-roll. Nil stops. The code's content is not in the
    /// reason (it may be a secret: a Wi-Fi password, a ticket).
    ///
    /// The trigger comes on the scanning thread as the code is found, before the next frame is
    /// scanned: with a file read unpaced or an unpaced camera (scanned frame by frame, holding the device
    /// back) every frame with a code triggers, however loaded the machine.
    public func triggersOnCodes(from metadata: CaptureMetadataOutput?) {
        let stop = metadata.map { metadata -> @Sendable () -> Void in
            let observer = metadata.observeObjects { [weak self] objects in
                guard let first = objects.first else { return }
                try? self?.trigger(reason: "code \(first.type.rawValue)", at: first.time)
            }
            return { [weak metadata] in metadata?.stopObserving(observer) }
        }
        replaceTriggerWatch(stop: stop)
    }
}
