import Foundation
import Glibc
import Synchronization
@testable import CaptureKit

/// A V4L2 node whose answers a test writes: formats, controls, frames, and a failure (errno)
/// or a storm of `EINTR`s at any call. Every call goes through the real ``V4L2Syscall``
/// wrapper, so retrying and error mapping are the production code's.
final class ScriptedV4L2Device: V4L2DeviceIO, @unchecked Sendable {
    struct FormatEntry {
        var description: V4L2FormatDescription
        var sizes: [V4L2FrameSize]
        var intervals: [V4L2FrameInterval]
    }

    struct Frame {
        var bytes: [UInt8]
        var sequence: UInt32
        var timestamp: Int64 = 0
        var hasError = false
        /// Reported bytesused; nil for the byte count.
        var bytesUsed: Int?
    }

    /// A call that goes through `successes` times, then fails with `errno`.
    struct DelayedFailure {
        var successes: Int
        var errno: Int32
    }

    struct Script {
        var capability = V4L2Capability(driver: "scripted", card: "Scripted Camera", busInfo: "platform:scripted-0",
                                        deviceCapabilities: 0x0400_0001) // STREAMING | VIDEO_CAPTURE
        var formats: [FormatEntry] = []
        var controls: [V4L2ControlInfo] = []
        var menus: [UInt32: [UInt32: String]] = [:]
        var controlValues: [UInt32: Int64] = [:]
        /// What S_FMT turns a request into (nil: takes it as asked).
        var substituteFormat: (@Sendable (V4L2PixFormat) -> V4L2PixFormat)?
        /// What S_PARM turns a request into (nil: takes it as asked).
        var substituteInterval: (@Sendable (V4L2Fraction) -> V4L2Fraction)?
        var bytesPerLine = 0
        var frames: [Frame] = []
        /// The errno DQBUF fails with once the frames are used up (nil: no more frames, ever).
        var endErrno: Int32?
        /// A file standing for the node: once it is gone the camera is unplugged (every poll
        /// wakes with an error and DQBUF fails with ENODEV, as a removed USB camera's do).
        var nodeFile: String?
        /// Calls that fail, by operation name ("VIDIOC_S_FMT", "open", "mmap") → errno.
        var failures: [String: Int32] = [:]
        /// Calls that fail only after some succeeded ("VIDIOC_EXPBUF" midway through the ring).
        var delayedFailures: [String: DelayedFailure] = [:]
        /// Calls interrupted this many times before going through.
        var interruptions: [String: Int] = [:]
        var grantedBuffers: Int?
        /// Nanoseconds between frames as a real camera delivers them (0: all at once), on
        /// absolute deadlines. Paced frames with a zero timestamp are stamped with their
        /// deadline, as a camera stamps its capture time: exact however late they are dequeued.
        var paceNanoseconds: Int64 = 0
    }

    let path: String
    private(set) var script: Script
    private(set) var calls: [String] = []
    private(set) var isClosed = false
    private(set) var mappedCount = 0
    private(set) var unmappedCount = 0
    /// DMA-BUF descriptors handed out by VIDIOC_EXPBUF (fake numbers, never real files) and
    /// the ones closed since.
    private(set) var exportedDescriptors: [Int32] = []
    private(set) var closedDescriptors: [Int32] = []
    private var succeeded: [String: Int] = [:]
    private var current = V4L2PixFormat(fourCC: .yuyv, width: 0, height: 0)
    private var buffers: [UnsafeMutableRawPointer] = []
    private var bufferLength = 0
    private var queued: [Int] = []
    private var nextFrame = 0
    private var streaming = false
    private var nextDue: Int64 = 0
    /// Deadlines of the paced frames that are ready and not yet dequeued, oldest first.
    private var released: [Int64] = []

    init(path: String = "/dev/video-scripted", script: Script) {
        self.path = path
        self.script = script
    }

    deinit {
        for buffer in buffers { free(buffer) }
    }

    /// Runs `body` as the syscall named `operation`, failing or interrupting it as scripted.
    private func call<T>(_ operation: String, _ body: () throws(CaptureError) -> T) throws(CaptureError) -> T {
        calls.append(operation)
        try V4L2Syscall.perform(operation, path: path) {
            if let left = script.interruptions[operation], left > 0 {
                script.interruptions[operation] = left - 1
                errno = EINTR
                return -1
            }
            if let code = script.failures[operation] {
                errno = code
                return -1
            }
            if let delayed = script.delayedFailures[operation], succeeded[operation, default: 0] >= delayed.successes {
                errno = delayed.errno
                return -1
            }
            succeeded[operation, default: 0] += 1
            return 0
        }
        return try body()
    }

    func queryCapability() throws(CaptureError) -> V4L2Capability { try call("VIDIOC_QUERYCAP") { script.capability } }

    func enumerateFormat(index: UInt32, bufferType: V4L2BufferType) throws(CaptureError) -> V4L2FormatDescription? {
        try call("VIDIOC_ENUM_FMT") { Int(index) < script.formats.count ? script.formats[Int(index)].description : nil }
    }

    func enumerateFrameSize(fourCC: V4L2FourCC, index: UInt32) throws(CaptureError) -> V4L2FrameSize? {
        try call("VIDIOC_ENUM_FRAMESIZES") {
            let sizes = script.formats.first { $0.description.fourCC == fourCC }?.sizes ?? []
            return Int(index) < sizes.count ? sizes[Int(index)] : nil
        }
    }

    func enumerateFrameInterval(fourCC: V4L2FourCC, width: Int, height: Int, index: UInt32) throws(CaptureError) -> V4L2FrameInterval? {
        try call("VIDIOC_ENUM_FRAMEINTERVALS") {
            let intervals = script.formats.first { $0.description.fourCC == fourCC }?.intervals ?? []
            return Int(index) < intervals.count ? intervals[Int(index)] : nil
        }
    }

    func format(bufferType: V4L2BufferType) throws(CaptureError) -> V4L2PixFormat { try call("VIDIOC_G_FMT") { current } }

    func setFormat(_ format: V4L2PixFormat, bufferType: V4L2BufferType) throws(CaptureError) -> V4L2PixFormat {
        try call("VIDIOC_S_FMT") {
            var chosen = script.substituteFormat?(format) ?? format
            chosen.bytesPerLine = 0
            let layoutWidth = chosen.fourCC.isJPEG ? 0 : (try? V4L2FrameLayout(chosen))?.planes[0].bytesPerRow ?? 0
            chosen.bytesPerLine = max(script.bytesPerLine, layoutWidth)
            chosen.sizeImage = chosen.fourCC.isJPEG ? chosen.width * chosen.height * 3
                : (try? V4L2FrameLayout(chosen).byteCount) ?? 0
            current = chosen
            return chosen
        }
    }

    func frameInterval(bufferType: V4L2BufferType) throws(CaptureError) -> V4L2Fraction? {
        try call("VIDIOC_G_PARM") { V4L2Fraction(numerator: 1, denominator: 30) }
    }

    func setFrameInterval(_ interval: V4L2Fraction, bufferType: V4L2BufferType) throws(CaptureError) -> V4L2Fraction? {
        try call("VIDIOC_S_PARM") { script.substituteInterval?(interval) ?? interval }
    }

    func queryControl(after id: UInt32) throws(CaptureError) -> V4L2ControlInfo? {
        try call("VIDIOC_QUERY_EXT_CTRL") { script.controls.sorted { $0.id < $1.id }.first { $0.id > id } }
    }

    func queryMenuItem(control: UInt32, index: UInt32, isIntegerMenu: Bool) throws(CaptureError) -> String? {
        try call("VIDIOC_QUERYMENU") { script.menus[control]?[index] }
    }

    func controlValue(id: UInt32, is64Bit: Bool) throws(CaptureError) -> Int64 {
        try call("VIDIOC_G_EXT_CTRLS") { script.controlValues[id] ?? 0 }
    }

    func setControlValue(id: UInt32, value: Int64, is64Bit: Bool) throws(CaptureError) {
        try call("VIDIOC_S_EXT_CTRLS") { script.controlValues[id] = value }
    }

    func requestBuffers(count: Int, bufferType: V4L2BufferType) throws(CaptureError) -> Int {
        try call("VIDIOC_REQBUFS") {
            let granted = count == 0 ? 0 : script.grantedBuffers ?? count
            bufferLength = max(current.sizeImage, 64 * 1024)
            while buffers.count < granted { buffers.append(malloc(bufferLength)!) }
            return granted
        }
    }

    func queryBuffer(index: Int, bufferType: V4L2BufferType) throws(CaptureError) -> V4L2BufferLocation {
        try call("VIDIOC_QUERYBUF") { V4L2BufferLocation(index: index, offset: index * 4096, length: bufferLength) }
    }

    func map(_ location: V4L2BufferLocation) throws(CaptureError) -> UnsafeMutableRawPointer {
        try call("mmap") {
            mappedCount += 1
            return buffers[location.index]
        }
    }

    func unmap(_ pointer: UnsafeMutableRawPointer, length: Int) {
        unmappedCount += 1
    }

    func exportBuffer(index: Int, bufferType: V4L2BufferType) throws(CaptureError) -> Int32 {
        try call("VIDIOC_EXPBUF") {
            let descriptor = Int32(10_000 + index)
            exportedDescriptors.append(descriptor)
            return descriptor
        }
    }

    func closeExportedBuffer(_ descriptor: Int32) { closedDescriptors.append(descriptor) }

    func queueBuffer(index: Int, bufferType: V4L2BufferType) throws(CaptureError) {
        try call("VIDIOC_QBUF") { queued.append(index) }
    }

    func dequeueBuffer(bufferType: V4L2BufferType) throws(CaptureError) -> V4L2DequeuedBuffer? {
        try call("VIDIOC_DQBUF") { () throws(CaptureError) -> V4L2DequeuedBuffer? in
            if isUnplugged { throw V4L2Syscall.error(errno: ENODEV, operation: "VIDIOC_DQBUF", path: path) }
            guard nextFrame < script.frames.count else {
                if let code = script.endErrno { throw V4L2Syscall.error(errno: code, operation: "VIDIOC_DQBUF", path: path) }
                return nil
            }
            guard !queued.isEmpty else { return nil }
            var deadline: Int64 = 0
            if script.paceNanoseconds > 0 {
                guard !released.isEmpty else { return nil }
                deadline = released.removeFirst()
            }
            let index = queued.removeFirst()
            let frame = script.frames[nextFrame]
            nextFrame += 1
            frame.bytes.withUnsafeBytes { bytes in
                buffers[index].copyMemory(from: bytes.baseAddress!, byteCount: min(bytes.count, bufferLength))
            }
            let stamp = frame.timestamp == 0 && script.paceNanoseconds > 0 ? deadline : frame.timestamp
            return V4L2DequeuedBuffer(index: index, bytesUsed: frame.bytesUsed ?? frame.bytes.count, sequence: frame.sequence,
                                      monotonicTimestamp: stamp, hasError: frame.hasError)
        }
    }

    func streamOn(bufferType: V4L2BufferType) throws(CaptureError) { try call("VIDIOC_STREAMON") { streaming = true } }

    func streamOff(bufferType: V4L2BufferType) throws(CaptureError) { try call("VIDIOC_STREAMOFF") { streaming = false } }

    func poll(timeoutMilliseconds: Int32) throws(CaptureError) -> V4L2PollResult {
        if isUnplugged { return .failed }
        if script.paceNanoseconds > 0, nextFrame < script.frames.count {
            // A paced camera: the next frame is ready one period after the previous one.
            if nextDue == 0 { nextDue = MonotonicClock.nanoseconds() + script.paceNanoseconds }
            let now = MonotonicClock.nanoseconds()
            if now < nextDue {
                MonotonicClock.sleep(untilNanoseconds: min(nextDue, now + Int64(timeoutMilliseconds) * 1_000_000))
                if MonotonicClock.nanoseconds() < nextDue { return .timeout }
            }
            released.append(nextDue)
            nextDue += script.paceNanoseconds
        }
        let ready = nextFrame < script.frames.count && !queued.isEmpty
        let ended = nextFrame >= script.frames.count && script.endErrno != nil
        if ready || ended { return ended ? .failed : .readable }
        usleep(UInt32(timeoutMilliseconds) * 1000)
        return .timeout
    }

    func close() { isClosed = true }

    private var isUnplugged: Bool { script.nodeFile.map { !FileManager.default.fileExists(atPath: $0) } ?? false }

    /// Whether every frame has been dequeued.
    var isDrained: Bool { nextFrame >= script.frames.count }
}

/// Hands out one scripted device (or fails to open, as scripted).
final class ScriptedOpener: V4L2DeviceOpener, @unchecked Sendable {
    let make: @Sendable () -> ScriptedV4L2Device
    private(set) var opened: [ScriptedV4L2Device] = []
    var openErrno: Int32?
    /// Whether the node is there (tests unplug it by setting this false).
    var present = true
    /// Whether the node is there only while a file at its path is (tests unplug it by removing
    /// the file, so a watched directory sees it go).
    var followsNodeFiles = false

    func nodeExists(_ path: String) -> Bool { present && (!followsNodeFiles || FileManager.default.fileExists(atPath: path)) }

    init(_ make: @escaping @Sendable () -> ScriptedV4L2Device) { self.make = make }

    func open(_ path: String) throws(CaptureError) -> any V4L2DeviceIO {
        if let openErrno { throw V4L2Syscall.error(errno: openErrno, operation: "open", path: path) }
        if followsNodeFiles, !FileManager.default.fileExists(atPath: path) { throw V4L2Syscall.error(errno: ENOENT, operation: "open", path: path) }
        let device = make()
        opened.append(device)
        return device
    }
}
