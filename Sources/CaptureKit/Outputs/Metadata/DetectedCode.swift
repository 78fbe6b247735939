/// One code a scanner decoded, in device pixel coordinates (continuous: pixel edges at integers).
struct DetectedCode {
    var type: MetadataObject.ObjectType
    var data: [UInt8]
    /// The code's top-left, top-right, bottom-right and bottom-left corners as printed.
    var corners: [(x: Double, y: Double)]
    /// The smallest upright box around every point the scanner located the code by.
    var minX: Double, minY: Double, maxX: Double, maxY: Double

    var centerX: Double { (minX + maxX) / 2 }
    var centerY: Double { (minY + maxY) / 2 }

    init(type: MetadataObject.ObjectType, data: [UInt8], corners: [(x: Double, y: Double)], points: [(x: Double, y: Double)]) {
        self.type = type
        self.data = data
        self.corners = corners
        minX = points.map(\.x).min() ?? 0
        maxX = points.map(\.x).max() ?? 0
        minY = points.map(\.y).min() ?? 0
        maxY = points.map(\.y).max() ?? 0
    }
}
