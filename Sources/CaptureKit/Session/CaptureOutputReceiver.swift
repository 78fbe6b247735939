/// What an output defined in another target of the package (the previews of
/// `CaptureKitPreview`) does with what the session hands it: the hooks ``CaptureOutput``'s
/// subclasses in this module override, which Swift lets no other module override unless they
/// are `open`, that is public. Such an output subclasses `CaptureOutput`, conforms to this and
/// calls ``CaptureOutput/forward(to:)`` with itself before it is added to a session.
package protocol CaptureOutputReceiver: AnyObject, Sendable {
    /// The media the output consumes.
    var acceptedMediaTypes: Set<MediaType> { get }

    /// Takes one sample. Runs on the device's thread: must not block.
    func receive(_ sample: SampleBuffer, from connection: CaptureConnection)

    /// The device skipped samples before the next one. Runs on the device's thread.
    func deviceDidDrop(count: Int, from connection: CaptureConnection)
}
