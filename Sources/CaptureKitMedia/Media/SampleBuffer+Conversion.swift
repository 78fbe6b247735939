import CaptureKitCore

extension SampleBuffer {
    /// The frame in another pixel format and/or size, converted once per target and shared
    /// between everyone who asks for the same target. Returns `self` when nothing changes.
    public func converted(to target: VideoTarget) throws(CaptureError) -> SampleBuffer {
        guard let source = pixelBuffer else {
            throw .invalidArgument("only video sample buffers can be converted to a pixel format")
        }
        let width = target.width ?? source.width
        let height = target.height ?? source.height
        let format = target.pixelFormat ?? source.pixelFormat
        if width == source.width, height == source.height, format == source.pixelFormat { return self }
        let key = VideoTarget(pixelFormat: format, width: width, height: height)
        // Held during the conversion so a second output asking for the same target waits for the
        // first result instead of converting again.
        return try conversions.withLock { (cache) throws(CaptureError) -> SampleBuffer in
            if let done = cache[key] { return done }
            let frame = try PixelConverter.shared.convert(source, to: format, width: width, height: height)
            let result = SampleBuffer(media: .video(frame), presentationTimeStamp: presentationTimeStamp,
                                      duration: duration, sequenceNumber: sequenceNumber)
            cache[key] = result
            return result
        }
    }
}
