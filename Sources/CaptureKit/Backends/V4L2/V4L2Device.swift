internal import CV4L2
import Glibc

/// A V4L2 node opened with open(2); every ioctl goes through ``V4L2Syscall``.
final class V4L2Device: V4L2DeviceIO {
    let path: String
    private let fd: Int32

    /// Opens `path` read-write and non-blocking (the stream thread waits in poll(2)).
    init(path: String) throws(CaptureError) {
        self.path = path
        let opened = try V4L2Syscall.perform("open", path: path) { Glibc.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC) }
        fd = opened ?? -1
    }

    private func ioctl<T>(_ name: String, _ request: UInt, _ argument: inout T, allowWouldBlock: Bool = false) throws(CaptureError) -> Bool {
        let fd = self.fd
        let result = try withUnsafeMutablePointer(to: &argument) { (pointer) throws(CaptureError) -> Int32? in
            try V4L2Syscall.perform(name, path: path, allowWouldBlock: allowWouldBlock) { ck_v4l2_ioctl(fd, request, pointer) }
        }
        return result != nil
    }

    /// Runs an enumeration ioctl: false at the end of the list (`EINVAL`).
    private func enumerate<T>(_ name: String, _ request: UInt, _ argument: inout T) throws(CaptureError) -> Bool {
        do {
            return try ioctl(name, request, &argument)
        } catch {
            if error.errno == EINVAL { return false }
            throw error
        }
    }

    func queryCapability() throws(CaptureError) -> V4L2Capability {
        var cap = v4l2_capability()
        _ = try ioctl("VIDIOC_QUERYCAP", ck_VIDIOC_QUERYCAP(), &cap)
        let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
        return V4L2Capability(driver: Self.string(cap.driver), card: Self.string(cap.card), busInfo: Self.string(cap.bus_info),
                              deviceCapabilities: caps)
    }

    func enumerateFormat(index: UInt32, bufferType: V4L2BufferType) throws(CaptureError) -> V4L2FormatDescription? {
        var desc = v4l2_fmtdesc()
        desc.index = index
        desc.type = bufferType.rawValue
        guard try enumerate("VIDIOC_ENUM_FMT", ck_VIDIOC_ENUM_FMT(), &desc) else { return nil }
        return V4L2FormatDescription(fourCC: V4L2FourCC(rawValue: desc.pixelformat), description: Self.string(desc.description),
                                     isCompressed: desc.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0)
    }

    func enumerateFrameSize(fourCC: V4L2FourCC, index: UInt32) throws(CaptureError) -> V4L2FrameSize? {
        var size = v4l2_frmsizeenum()
        size.index = index
        size.pixel_format = fourCC.rawValue
        guard try enumerate("VIDIOC_ENUM_FRAMESIZES", ck_VIDIOC_ENUM_FRAMESIZES(), &size) else { return nil }
        if size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
            return .discrete(width: Int(size.discrete.width), height: Int(size.discrete.height))
        }
        let s = size.stepwise
        let continuous = size.type == V4L2_FRMSIZE_TYPE_CONTINUOUS.rawValue
        return .stepwise(minWidth: Int(s.min_width), maxWidth: Int(s.max_width), stepWidth: continuous ? 1 : Int(max(1, s.step_width)),
                         minHeight: Int(s.min_height), maxHeight: Int(s.max_height), stepHeight: continuous ? 1 : Int(max(1, s.step_height)))
    }

    func enumerateFrameInterval(fourCC: V4L2FourCC, width: Int, height: Int, index: UInt32) throws(CaptureError) -> V4L2FrameInterval? {
        var interval = v4l2_frmivalenum()
        interval.index = index
        interval.pixel_format = fourCC.rawValue
        interval.width = UInt32(clamping: width)
        interval.height = UInt32(clamping: height)
        guard try enumerate("VIDIOC_ENUM_FRAMEINTERVALS", ck_VIDIOC_ENUM_FRAMEINTERVALS(), &interval) else { return nil }
        if interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
            return .discrete(Self.fraction(interval.discrete))
        }
        let s = interval.stepwise
        return .stepwise(minimum: Self.fraction(s.min), maximum: Self.fraction(s.max), step: Self.fraction(s.step))
    }

    func format(bufferType: V4L2BufferType) throws(CaptureError) -> V4L2PixFormat {
        var format = v4l2_format()
        format.type = bufferType.rawValue
        _ = try ioctl("VIDIOC_G_FMT", ck_VIDIOC_G_FMT(), &format)
        return Self.pixFormat(format, bufferType: bufferType)
    }

    func setFormat(_ wanted: V4L2PixFormat, bufferType: V4L2BufferType) throws(CaptureError) -> V4L2PixFormat {
        var format = v4l2_format()
        format.type = bufferType.rawValue
        switch bufferType {
        case .capture:
            format.fmt.pix.pixelformat = wanted.fourCC.rawValue
            format.fmt.pix.width = UInt32(clamping: wanted.width)
            format.fmt.pix.height = UInt32(clamping: wanted.height)
            format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        case .captureMultiplanar:
            format.fmt.pix_mp.pixelformat = wanted.fourCC.rawValue
            format.fmt.pix_mp.width = UInt32(clamping: wanted.width)
            format.fmt.pix_mp.height = UInt32(clamping: wanted.height)
            format.fmt.pix_mp.field = V4L2_FIELD_NONE.rawValue
        }
        _ = try ioctl("VIDIOC_S_FMT", ck_VIDIOC_S_FMT(), &format)
        return Self.pixFormat(format, bufferType: bufferType)
    }

    func frameInterval(bufferType: V4L2BufferType) throws(CaptureError) -> V4L2Fraction? {
        var parm = v4l2_streamparm()
        parm.type = bufferType.rawValue
        _ = try ioctl("VIDIOC_G_PARM", ck_VIDIOC_G_PARM(), &parm)
        guard parm.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0 else { return nil }
        return Self.fraction(parm.parm.capture.timeperframe)
    }

    func setFrameInterval(_ interval: V4L2Fraction, bufferType: V4L2BufferType) throws(CaptureError) -> V4L2Fraction? {
        var parm = v4l2_streamparm()
        parm.type = bufferType.rawValue
        parm.parm.capture.timeperframe = v4l2_fract(numerator: interval.numerator, denominator: interval.denominator)
        _ = try ioctl("VIDIOC_S_PARM", ck_VIDIOC_S_PARM(), &parm)
        guard parm.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0 else { return nil }
        return Self.fraction(parm.parm.capture.timeperframe)
    }

    func queryControl(after id: UInt32) throws(CaptureError) -> V4L2ControlInfo? {
        var query = v4l2_query_ext_ctrl()
        query.id = id | ck_v4l2_next_control_flags()
        guard try enumerate("VIDIOC_QUERY_EXT_CTRL", ck_VIDIOC_QUERY_EXT_CTRL(), &query) else { return nil }
        return V4L2ControlInfo(id: query.id, name: Self.string(query.name), type: query.type, minimum: query.minimum,
                               maximum: query.maximum, step: query.step, defaultValue: query.default_value, flags: query.flags)
    }

    func queryMenuItem(control: UInt32, index: UInt32, isIntegerMenu: Bool) throws(CaptureError) -> String? {
        var menu = v4l2_querymenu()
        menu.id = control
        menu.index = index
        guard try enumerate("VIDIOC_QUERYMENU", ck_VIDIOC_QUERYMENU(), &menu) else { return nil }
        return isIntegerMenu ? String(menu.value) : Self.string(menu.name)
    }

    func controlValue(id: UInt32, is64Bit: Bool) throws(CaptureError) -> Int64 {
        var control = v4l2_ext_control()
        control.id = id
        try extendedControls("VIDIOC_G_EXT_CTRLS", ck_VIDIOC_G_EXT_CTRLS(), &control)
        return is64Bit ? control.value64 : Int64(control.value)
    }

    func setControlValue(id: UInt32, value: Int64, is64Bit: Bool) throws(CaptureError) {
        var control = v4l2_ext_control()
        control.id = id
        if is64Bit { control.value64 = value } else { control.value = Int32(clamping: value) }
        try extendedControls("VIDIOC_S_EXT_CTRLS", ck_VIDIOC_S_EXT_CTRLS(), &control)
    }

    private func extendedControls(_ name: String, _ request: UInt, _ control: inout v4l2_ext_control) throws(CaptureError) {
        try withUnsafeMutablePointer(to: &control) { (pointer) throws(CaptureError) in
            var controls = v4l2_ext_controls()
            controls.which = UInt32(V4L2_CTRL_WHICH_CUR_VAL)
            controls.count = 1
            controls.controls = pointer
            _ = try ioctl(name, request, &controls)
        }
    }

    func requestBuffers(count: Int, bufferType: V4L2BufferType) throws(CaptureError) -> Int {
        var request = v4l2_requestbuffers()
        request.count = UInt32(clamping: count)
        request.type = bufferType.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        _ = try ioctl("VIDIOC_REQBUFS", ck_VIDIOC_REQBUFS(), &request)
        return Int(request.count)
    }

    func queryBuffer(index: Int, bufferType: V4L2BufferType) throws(CaptureError) -> V4L2BufferLocation {
        var planes = v4l2_plane()
        return try withUnsafeMutablePointer(to: &planes) { (plane) throws(CaptureError) -> V4L2BufferLocation in
            var buffer = Self.buffer(index: index, bufferType: bufferType, plane: plane)
            _ = try ioctl("VIDIOC_QUERYBUF", ck_VIDIOC_QUERYBUF(), &buffer)
            switch bufferType {
            case .capture: return V4L2BufferLocation(index: index, offset: Int(buffer.m.offset), length: Int(buffer.length))
            case .captureMultiplanar: return V4L2BufferLocation(index: index, offset: Int(plane.pointee.m.mem_offset), length: Int(plane.pointee.length))
            }
        }
    }

    func map(_ location: V4L2BufferLocation) throws(CaptureError) -> UnsafeMutableRawPointer {
        let fd = self.fd
        var mapped: UnsafeMutableRawPointer?
        _ = try V4L2Syscall.perform("mmap", path: path) {
            let pointer = mmap(nil, location.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(location.offset))
            guard let pointer, pointer != MAP_FAILED else { return -1 }
            mapped = pointer
            return 0
        }
        guard let mapped else { throw .internalError("mmap of \(path) returned no address") }
        return mapped
    }

    func unmap(_ pointer: UnsafeMutableRawPointer, length: Int) {
        munmap(pointer, length)
    }

    func exportBuffer(index: Int, bufferType: V4L2BufferType) throws(CaptureError) -> Int32 {
        var export = v4l2_exportbuffer()
        export.type = bufferType.rawValue
        export.index = UInt32(index)
        export.plane = 0
        export.flags = UInt32(O_RDONLY | O_CLOEXEC)
        _ = try ioctl("VIDIOC_EXPBUF", ck_VIDIOC_EXPBUF(), &export)
        return export.fd
    }

    func closeExportedBuffer(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    func queueBuffer(index: Int, bufferType: V4L2BufferType) throws(CaptureError) {
        var planes = v4l2_plane()
        try withUnsafeMutablePointer(to: &planes) { (plane) throws(CaptureError) in
            var buffer = Self.buffer(index: index, bufferType: bufferType, plane: plane)
            _ = try ioctl("VIDIOC_QBUF", ck_VIDIOC_QBUF(), &buffer)
        }
    }

    func dequeueBuffer(bufferType: V4L2BufferType) throws(CaptureError) -> V4L2DequeuedBuffer? {
        var planes = v4l2_plane()
        return try withUnsafeMutablePointer(to: &planes) { (plane) throws(CaptureError) -> V4L2DequeuedBuffer? in
            var buffer = Self.buffer(index: 0, bufferType: bufferType, plane: plane)
            guard try ioctl("VIDIOC_DQBUF", ck_VIDIOC_DQBUF(), &buffer, allowWouldBlock: true) else { return nil }
            let used = bufferType == .capture ? Int(buffer.bytesused) : Int(plane.pointee.bytesused)
            let monotonic = buffer.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK) == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC)
            let timestamp = Int64(buffer.timestamp.tv_sec) * 1_000_000_000 + Int64(buffer.timestamp.tv_usec) * 1_000
            return V4L2DequeuedBuffer(index: Int(buffer.index), bytesUsed: used, sequence: buffer.sequence,
                                      monotonicTimestamp: monotonic ? timestamp : nil,
                                      hasError: buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0)
        }
    }

    func streamOn(bufferType: V4L2BufferType) throws(CaptureError) {
        var type = Int32(bitPattern: bufferType.rawValue)
        do {
            _ = try ioctl("VIDIOC_STREAMON", ck_VIDIOC_STREAMON(), &type)
        } catch where error.errno == ENOSPC {
            // uvcvideo's answer when the USB bus has no isochronous bandwidth left for the format.
            var refused = error
            refused.code = .insufficientBandwidth
            refused.message = "\(path): the USB bus has no bandwidth left for this format (VIDIOC_STREAMON: ENOSPC); "
                + "another camera on the same bus takes it: choose MJPEG or a smaller size, or use another USB port"
            throw refused
        }
    }

    func streamOff(bufferType: V4L2BufferType) throws(CaptureError) {
        var type = Int32(bitPattern: bufferType.rawValue)
        _ = try ioctl("VIDIOC_STREAMOFF", ck_VIDIOC_STREAMOFF(), &type)
    }

    func poll(timeoutMilliseconds: Int32) throws(CaptureError) -> V4L2PollResult {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN | POLLPRI), revents: 0)
        let ready = try V4L2Syscall.perform("poll", path: path) { Glibc.poll(&descriptor, 1, timeoutMilliseconds) } ?? 0
        if ready == 0 { return .timeout }
        if descriptor.revents & Int16(POLLIN) != 0 { return .readable }
        if descriptor.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return .failed }
        return .timeout
    }

    func close() {
        _ = Glibc.close(fd)
    }

    // MARK: Conversions from the kernel's structures

    private static func buffer(index: Int, bufferType: V4L2BufferType, plane: UnsafeMutablePointer<v4l2_plane>) -> v4l2_buffer {
        var buffer = v4l2_buffer()
        buffer.index = UInt32(index)
        buffer.type = bufferType.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        if bufferType == .captureMultiplanar {
            buffer.m.planes = plane
            buffer.length = 1
        }
        return buffer
    }

    private static func pixFormat(_ format: v4l2_format, bufferType: V4L2BufferType) -> V4L2PixFormat {
        switch bufferType {
        case .capture:
            let pix = format.fmt.pix
            return V4L2PixFormat(fourCC: V4L2FourCC(rawValue: pix.pixelformat), width: Int(pix.width), height: Int(pix.height),
                                 bytesPerLine: Int(pix.bytesperline), sizeImage: Int(pix.sizeimage), planeCount: 1)
        case .captureMultiplanar:
            let pix = format.fmt.pix_mp
            let first = pix.plane_fmt.0
            return V4L2PixFormat(fourCC: V4L2FourCC(rawValue: pix.pixelformat), width: Int(pix.width), height: Int(pix.height),
                                 bytesPerLine: Int(first.bytesperline), sizeImage: Int(first.sizeimage), planeCount: Int(pix.num_planes))
        }
    }

    private static func fraction(_ value: v4l2_fract) -> V4L2Fraction {
        V4L2Fraction(numerator: value.numerator, denominator: value.denominator)
    }

    /// A fixed-size, NUL-padded C string field (the kernel may fill it completely).
    static func string<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// Opens real device nodes.
struct V4L2SystemOpener: V4L2DeviceOpener {
    func open(_ path: String) throws(CaptureError) -> any V4L2DeviceIO { try V4L2Device(path: path) }
    func nodeExists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}
