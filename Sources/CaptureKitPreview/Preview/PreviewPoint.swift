import CaptureKit

/// A point for the preview's coordinate conversions: window pixels for a layer point, the
/// device's normalized space for a device point (see ``/CaptureKit/CapturePoint``).
public typealias PreviewPoint = CapturePoint
