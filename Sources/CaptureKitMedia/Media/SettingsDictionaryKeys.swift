// The dictionary keys AVFoundation's settings take (`AVVideoCodecKey`, the CoreVideo pixel
// buffer keys), so that ported code which builds its settings as dictionaries keeps doing so.
// CaptureKit's settings are typed structs; the initializers that take these dictionaries read
// the keys below and ignore the rest.

/// The codec of a photo or movie (`AVVideoCodecType`): `.h264`, `.hevc`, `.jpeg`.
public typealias VideoCodecType = MovieOutputSettings.VideoCodec

extension MovieOutputSettings.VideoCodec {
    /// JPEG (`AVVideoCodecType.jpeg`): a JPEG still, or Motion JPEG in a movie.
    public static var jpeg: Self { .mjpeg }
}

/// The codec entry of a settings dictionary (`AVVideoCodecKey`); its value is a ``VideoCodecType``.
public let VideoCodecKey = "AVVideoCodecKey"

/// The pixel format entry of a pixel buffer description (`kCVPixelBufferPixelFormatTypeKey`);
/// its value is a ``PixelFormat``.
public let PixelBufferPixelFormatTypeKey = "PixelFormatType"

/// The width entry of a pixel buffer description (`kCVPixelBufferWidthKey`), in pixels.
public let PixelBufferWidthKey = "Width"

/// The height entry of a pixel buffer description (`kCVPixelBufferHeightKey`), in pixels.
public let PixelBufferHeightKey = "Height"
