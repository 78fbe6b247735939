/// Turns a node's ENUM_FMT × ENUM_FRAMESIZES × ENUM_FRAMEINTERVALS answers into
/// ``CaptureDevice/Format`` values, in the driver's order (the order `v4l2-ctl
/// --list-formats-ext` prints).
///
/// Stepwise and continuous size ranges are not expanded pixel by pixel (a 1×1-step range
/// up to 4K is millions of sizes; enumerating them is how Qt hung): they become the range's
/// smallest and largest size plus the common sizes on its grid.
struct V4L2FormatEnumerator {
    let io: any V4L2DeviceIO
    let bufferType: V4L2BufferType

    /// More answers than this from one enumeration is a driver bug, not a camera.
    static let maximumEntries: UInt32 = 1024

    /// Sizes offered from a stepwise range when they fit it.
    static let commonSizes: [(width: Int, height: Int)] = [
        (160, 120), (176, 144), (320, 180), (320, 240), (352, 288), (640, 360), (640, 480), (800, 600), (1024, 576),
        (1024, 768), (1280, 720), (1280, 960), (1920, 1080), (2560, 1440), (3840, 2160),
    ]

    /// Every format CaptureKit can read, and the FourCCs it cannot (named in diagnostics).
    func formats() throws(CaptureError) -> (formats: [CaptureDevice.Format], unsupported: [V4L2FourCC]) {
        var formats: [CaptureDevice.Format] = []
        var unsupported: [V4L2FourCC] = []
        var index: UInt32 = 0
        while index < Self.maximumEntries, let description = try io.enumerateFormat(index: index, bufferType: bufferType) {
            index += 1
            guard let pixelFormat = description.fourCC.pixelFormat else {
                unsupported.append(description.fourCC)
                continue
            }
            for size in try sizes(of: description.fourCC) {
                let ranges = try frameRateRanges(fourCC: description.fourCC, width: size.width, height: size.height)
                formats.append(CaptureDevice.Format(pixelFormat: pixelFormat, width: size.width, height: size.height, frameRateRanges: ranges,
                                                    encoding: description.fourCC.isJPEG ? .mjpeg : .uncompressed,
                                                    fourCC: description.fourCC.description))
            }
        }
        return (formats, unsupported)
    }

    /// The frame sizes of one FourCC.
    func sizes(of fourCC: V4L2FourCC) throws(CaptureError) -> [(width: Int, height: Int)] {
        var sizes: [(width: Int, height: Int)] = []
        var index: UInt32 = 0
        while index < Self.maximumEntries, let size = try io.enumerateFrameSize(fourCC: fourCC, index: index) {
            index += 1
            switch size {
            case .discrete(let width, let height):
                sizes.append((width, height))
            case .stepwise(let minWidth, let maxWidth, let stepWidth, let minHeight, let maxHeight, let stepHeight):
                sizes += Self.sizes(minWidth: minWidth, maxWidth: maxWidth, stepWidth: stepWidth,
                                    minHeight: minHeight, maxHeight: maxHeight, stepHeight: stepHeight)
            }
        }
        if sizes.isEmpty {
            // Drivers without ENUM_FRAMESIZES still have the size they are set to.
            let current = try io.format(bufferType: bufferType)
            if current.fourCC == fourCC, current.width > 0, current.height > 0 { sizes.append((current.width, current.height)) }
        }
        return sizes
    }

    /// The sizes listed for a stepwise range: its ends and the common sizes on its grid.
    static func sizes(minWidth: Int, maxWidth: Int, stepWidth: Int, minHeight: Int, maxHeight: Int,
                      stepHeight: Int) -> [(width: Int, height: Int)] {
        func fits(_ value: Int, _ low: Int, _ high: Int, _ step: Int) -> Bool {
            value >= low && value <= high && (value - low) % max(step, 1) == 0
        }
        var result: [(width: Int, height: Int)] = [(minWidth, minHeight)]
        for size in commonSizes where fits(size.width, minWidth, maxWidth, stepWidth) && fits(size.height, minHeight, maxHeight, stepHeight) {
            if !result.contains(where: { $0 == size }) { result.append(size) }
        }
        if !result.contains(where: { $0 == (maxWidth, maxHeight) }) { result.append((maxWidth, maxHeight)) }
        return result.filter { $0.width > 0 && $0.height > 0 }
    }

    /// The frame rates of one FourCC at one size, fastest first as drivers list them.
    func frameRateRanges(fourCC: V4L2FourCC, width: Int, height: Int) throws(CaptureError) -> [CaptureDevice.FrameRateRange] {
        var ranges: [CaptureDevice.FrameRateRange] = []
        var index: UInt32 = 0
        while index < Self.maximumEntries {
            let interval: V4L2FrameInterval?
            do {
                interval = try io.enumerateFrameInterval(fourCC: fourCC, width: width, height: height, index: index)
            } catch {
                // Drivers that cannot enumerate intervals (ENOTTY) still run at some rate.
                if error.code == .deviceDisconnected || error.code == .deviceBusy || error.code == .notAuthorized { throw error }
                break
            }
            guard let interval else { break }
            index += 1
            switch interval {
            case .discrete(let fraction):
                if let duration = fraction.duration { ranges.append(CaptureDevice.FrameRateRange(minFrameDuration: duration, maxFrameDuration: duration)) }
            case .stepwise(let minimum, let maximum, _):
                if let low = minimum.duration, let high = maximum.duration {
                    ranges.append(CaptureDevice.FrameRateRange(minFrameDuration: low, maxFrameDuration: high))
                }
            }
        }
        if ranges.isEmpty {
            let current = (try? io.frameInterval(bufferType: bufferType))??.duration ?? MediaTime(value: 1, timescale: 30)
            ranges.append(CaptureDevice.FrameRateRange(minFrameDuration: current, maxFrameDuration: current))
        }
        return ranges
    }
}
