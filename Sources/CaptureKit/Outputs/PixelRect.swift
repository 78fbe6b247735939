/// A rectangle of whole pixels in a frame.
struct PixelRect: Sendable, Equatable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int
}
