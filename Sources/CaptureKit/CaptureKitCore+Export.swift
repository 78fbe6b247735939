// Applications import CaptureKit alone: the core vocabulary (MediaTime, PixelBuffer,
// SampleBuffer, CaptureError, …) is part of its API.
@_exported import CaptureKitCore
