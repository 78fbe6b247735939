import Foundation

/// Turns a captured frame into a ``CapturePhoto``: scales it into the requested box when needed
/// (once, through the sample buffer's shared conversion cache), converts it to what the encoder
/// takes, writes the EXIF block and encodes. Runs on the photo worker, never on the device thread.
enum PhotoProcessor {
    /// The photo in `fileType` (the request's unless a raw request's processed photo is made).
    static func makePhoto(from sample: SampleBuffer, plan: PhotoPlan, resolved: CaptureResolvedPhotoSettings,
                          fileType: PhotoFileType) throws(CaptureError) -> CapturePhoto {
        guard let frame = sample.pixelBuffer else { throw .internalError("a photo request was given an audio sample") }
        let settings = plan.settings
        let frameSize = PhotoDimensions(width: frame.width, height: frame.height).scaledToFit(plan.box)
        // Raw samples are never turned: a demosaicer needs them where the sensor had them (and
        // the processed photo of a raw request keeps their geometry).
        let turnsPixels = settings.appliesOrientationToPixels && !settings.fileType.isRaw
        let pixelTurn: EXIFOrientation = turnsPixels ? plan.orientation : .up
        let stored = pixelTurn.swapsDimensions ? PhotoDimensions(width: frameSize.height, height: frameSize.width) : frameSize

        var metadata = EXIFMetadata()
        metadata.orientation = turnsPixels ? .up : plan.orientation
        metadata.make = plan.make
        metadata.model = plan.model
        metadata.software = "CaptureKit"
        metadata.dateTimeOriginal = wallClockDate(of: sample.presentationTimeStamp)
        metadata.pixelWidth = stored.width
        metadata.pixelHeight = stored.height
        metadata.flashFired = plan.hasFlash ? (settings.flashMode == .on) : nil

        func input(_ format: PixelFormat) throws(CaptureError) -> PixelBuffer {
            let converted = try sample.converted(to: VideoTarget(pixelFormat: format, width: frameSize.width, height: frameSize.height))
            guard let buffer = converted.pixelBuffer else { throw .internalError("a video conversion gave no frame") }
            return buffer
        }
        let quality = min(100, max(1, Int((settings.quality * 100).rounded())))
        let data: Data
        switch fileType {
        case .jpeg:
            // At the frame's own size the encoder reads the camera's layout directly (one pass
            // splits the planes and expands the range); a scaled photo is scaled by libswscale.
            let unscaled = frameSize.width == frame.width && frameSize.height == frame.height
            data = try JPEGEncoder.encode(unscaled ? frame : try input(JPEGEncoder.planarFormat(for: frame.pixelFormat)),
                                          quality: quality, applying: pixelTurn, metadata: metadata)
        case .png:
            data = try PNGEncoder.encode(try input(.rgb24), applying: pixelTurn, metadata: metadata)
        case .dng:
            // The samples as they came, at the frame's size, the orientation in a tag.
            data = try DNGEncoder.encode(frame, metadata: metadata)
        case .heif:
            data = try HEIFEncoder.encode(try input(.yuv420p), quality: quality, applying: pixelTurn,
                                          displayOrientation: metadata.orientation, metadata: metadata)
        }
        return CapturePhoto(resolvedSettings: resolved.with(photoDimensions: stored, fileType: fileType), source: sample, frameDimensions: frameSize,
                            metadata: metadata, fileData: data)
    }

    /// The wall-clock instant of a time on the session clock (`CLOCK_MONOTONIC`), by the
    /// current offset between `CLOCK_REALTIME` and `CLOCK_MONOTONIC`.
    static func wallClockDate(of time: MediaTime) -> Date? {
        SessionWallClock.current().date(of: time)
    }
}
