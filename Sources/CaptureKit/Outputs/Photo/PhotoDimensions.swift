/// The size of a photo in pixels (`CMVideoDimensions` as `maxPhotoDimensions` uses it).
public typealias PhotoDimensions = VideoDimensions
