extension CapturePreRollOutput {
    /// Triggers a clip whenever `metadata` (an output of the same session) sees a code, at the
    /// frame it saw it in, with the reason `"code <type>"` (`"code qr"`): a clip for as long as
    /// the code stays in view, plus the post-roll. Nil stops. The code's content is not in the
    /// reason (it may be a secret: a Wi-Fi password, a ticket).
    public func triggersOnCodes(from metadata: CaptureMetadataOutput?) {
        let task = metadata.map { metadata in
            let stream = metadata.metadataObjects
            return Task { [weak self] in
                for await objects in stream {
                    guard let first = objects.first else { continue }
                    try? self?.trigger(reason: "code \(first.type.rawValue)", at: first.time)
                }
            }
        }
        replaceTriggerTask(task)
    }
}
