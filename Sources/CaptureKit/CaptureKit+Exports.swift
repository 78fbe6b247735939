// Applications import CaptureKit alone: the core vocabulary (MediaTime, PixelBuffer,
// SampleBuffer, CaptureError, …), the media files and codecs (probing, thumbnails, photo
// formats) and the media library are part of its API. Foundation too, as AVFoundation
// re-exports it: URL, Data and Date are in CaptureKit's signatures.
@_exported import Foundation
@_exported import CaptureKitCore
@_exported import CaptureKitMedia
@_exported import CaptureKitLibrary
