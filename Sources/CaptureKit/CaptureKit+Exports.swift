// Applications import CaptureKit alone: the core vocabulary (MediaTime, PixelBuffer,
// SampleBuffer, CaptureError, …), the media files and codecs (probing, thumbnails, photo
// formats) and the media library are part of its API.
@_exported import CaptureKitCore
@_exported import CaptureKitMedia
@_exported import CaptureKitLibrary
