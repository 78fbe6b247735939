import CaptureKit
internal import CSDL2

/// The preview window's streaming texture, remade when the frame size or layout changes.
/// Camera layouts are uploaded as they are (SDL converts YUV to RGB while drawing); only the
/// layouts SDL has no texture format for are converted first. Render thread only.
final class PreviewTexture {
    private let renderer: OpaquePointer
    private var texture: OpaquePointer?
    private var key: (width: Int, height: Int, format: PixelFormat)?

    init(renderer: OpaquePointer) { self.renderer = renderer }

    /// Whether SDL takes `format` as a texture without conversion.
    static func isUploadable(_ format: PixelFormat) -> Bool { sdlFormat(format) != nil }

    private static func sdlFormat(_ format: PixelFormat) -> UInt32? {
        switch format {
        case .yuv420p: return SDL_PIXELFORMAT_IYUV.rawValue
        case .nv12: return SDL_PIXELFORMAT_NV12.rawValue
        case .nv21: return SDL_PIXELFORMAT_NV21.rawValue
        case .yuyv422: return SDL_PIXELFORMAT_YUY2.rawValue
        case .uyvy422: return SDL_PIXELFORMAT_UYVY.rawValue
        case .rgb24: return SDL_PIXELFORMAT_RGB24.rawValue
        case .bgr24: return SDL_PIXELFORMAT_BGR24.rawValue
        // SDL names packed 32-bit formats by their value in a little-endian word.
        case .bgra: return SDL_PIXELFORMAT_ARGB8888.rawValue
        case .rgba: return SDL_PIXELFORMAT_ABGR8888.rawValue
        default: return nil  // planar 4:2:2, grey and raw Bayer are converted first
        }
    }

    /// Copies `frame` into the texture. Wraps SDL_UpdateYUVTexture, SDL_UpdateNVTexture and
    /// SDL_UpdateTexture.
    func upload(_ frame: PixelBuffer) throws(CaptureError) -> OpaquePointer {
        guard let format = Self.sdlFormat(frame.pixelFormat) else {
            throw CaptureError(.unsupportedFormat, "\(frame.pixelFormat) frames cannot be shown without converting them first")
        }
        if texture == nil || key?.width != frame.width || key?.height != frame.height || key?.format != frame.pixelFormat {
            destroy()
            guard let made = SDL_CreateTexture(renderer, format, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                                               Int32(frame.width), Int32(frame.height)) else {
                throw CaptureError(.conversionFailed, "cannot make a \(frame.width)x\(frame.height) \(frame.pixelFormat) texture: \(String(cString: SDL_GetError()))",
                                   operation: "SDL_CreateTexture")
            }
            texture = made
            key = (frame.width, frame.height, frame.pixelFormat)
        }
        guard let texture else { throw CaptureError(.internalError, "no texture") }
        // The frame outlives this call and its storage never moves.
        func plane(_ index: Int) -> UnsafePointer<UInt8> {
            UnsafePointer((frame.storage.bytes + frame.planes[index].offset).assumingMemoryBound(to: UInt8.self))
        }
        func stride(_ index: Int) -> Int32 { Int32(frame.bytesPerRow(ofPlane: index)) }
        let result: Int32
        switch frame.pixelFormat {
        case .yuv420p: result = SDL_UpdateYUVTexture(texture, nil, plane(0), stride(0), plane(1), stride(1), plane(2), stride(2))
        case .nv12, .nv21: result = SDL_UpdateNVTexture(texture, nil, plane(0), stride(0), plane(1), stride(1))
        default: result = SDL_UpdateTexture(texture, nil, plane(0), stride(0))
        }
        guard result == 0 else {
            throw CaptureError(.conversionFailed, "cannot upload a frame: \(String(cString: SDL_GetError()))", operation: "SDL_UpdateTexture")
        }
        return texture
    }

    func destroy() {
        if let texture { SDL_DestroyTexture(texture) }
        texture = nil
        key = nil
    }
}
