internal import CPipeWire

/// Takes back the PipeWire frames a camera stream lent by reference: the tag is the shim's
/// `ck_pw_frame`, which knows its stream, so one stateless lender serves every stream and a
/// frame kept after its stream closed is unmapped rather than queued.
final class PipeWireFrameLender: StorageLender {
    /// The one lender.
    static let shared = PipeWireFrameLender()

    private init() {}

    /// Wraps `ck_pw_frame_release`.
    func takeBack(_ tag: Int) {
        ck_pw_frame_release(OpaquePointer(bitPattern: tag))
    }
}
