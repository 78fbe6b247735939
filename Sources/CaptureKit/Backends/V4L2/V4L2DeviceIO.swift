/// One open V4L2 node, one method per ioctl the backend uses. The real node is ``V4L2Device``;
/// unit tests script another to reach the failures no driver produces on demand. Methods
/// throw the typed errors of ``V4L2Syscall``; enumerations return nil at their end (`EINVAL`).
protocol V4L2DeviceIO: AnyObject, Sendable {
    /// The node, as `/dev/video0`.
    var path: String { get }
    /// Wraps VIDIOC_QUERYCAP.
    func queryCapability() throws(CaptureError) -> V4L2Capability
    /// Wraps VIDIOC_ENUM_FMT.
    func enumerateFormat(index: UInt32, bufferType: V4L2BufferType) throws(CaptureError) -> V4L2FormatDescription?
    /// Wraps VIDIOC_ENUM_FRAMESIZES.
    func enumerateFrameSize(fourCC: V4L2FourCC, index: UInt32) throws(CaptureError) -> V4L2FrameSize?
    /// Wraps VIDIOC_ENUM_FRAMEINTERVALS.
    func enumerateFrameInterval(fourCC: V4L2FourCC, width: Int, height: Int, index: UInt32) throws(CaptureError) -> V4L2FrameInterval?
    /// Wraps VIDIOC_G_FMT.
    func format(bufferType: V4L2BufferType) throws(CaptureError) -> V4L2PixFormat
    /// Wraps VIDIOC_S_FMT; returns what the driver chose.
    func setFormat(_ format: V4L2PixFormat, bufferType: V4L2BufferType) throws(CaptureError) -> V4L2PixFormat
    /// Wraps VIDIOC_G_PARM; nil when the driver cannot set its frame interval.
    func frameInterval(bufferType: V4L2BufferType) throws(CaptureError) -> V4L2Fraction?
    /// Wraps VIDIOC_S_PARM; returns what the driver chose, nil when it cannot set it.
    func setFrameInterval(_ interval: V4L2Fraction, bufferType: V4L2BufferType) throws(CaptureError) -> V4L2Fraction?
    /// Wraps VIDIOC_QUERY_EXT_CTRL with V4L2_CTRL_FLAG_NEXT_CTRL: the control after `id`.
    func queryControl(after id: UInt32) throws(CaptureError) -> V4L2ControlInfo?
    /// Wraps VIDIOC_QUERYMENU: a menu item's name (menus) or value (integer menus); nil for a
    /// hole in the menu.
    func queryMenuItem(control: UInt32, index: UInt32, isIntegerMenu: Bool) throws(CaptureError) -> String?
    /// Wraps VIDIOC_G_EXT_CTRLS for one control.
    func controlValue(id: UInt32, is64Bit: Bool) throws(CaptureError) -> Int64
    /// Wraps VIDIOC_S_EXT_CTRLS for one control.
    func setControlValue(id: UInt32, value: Int64, is64Bit: Bool) throws(CaptureError)
    /// Wraps VIDIOC_REQBUFS (memory-mapped); returns how many buffers the driver made.
    func requestBuffers(count: Int, bufferType: V4L2BufferType) throws(CaptureError) -> Int
    /// Wraps VIDIOC_QUERYBUF.
    func queryBuffer(index: Int, bufferType: V4L2BufferType) throws(CaptureError) -> V4L2BufferLocation
    /// Wraps mmap(2) of a buffer.
    func map(_ location: V4L2BufferLocation) throws(CaptureError) -> UnsafeMutableRawPointer
    /// Wraps munmap(2).
    func unmap(_ pointer: UnsafeMutableRawPointer, length: Int)
    /// Wraps VIDIOC_EXPBUF (plane 0, `O_RDONLY | O_CLOEXEC`): the buffer as a DMA-BUF file
    /// descriptor. Drivers that cannot export fail with `ENOTTY` or `EINVAL`.
    func exportBuffer(index: Int, bufferType: V4L2BufferType) throws(CaptureError) -> Int32
    /// Closes a descriptor ``exportBuffer(index:bufferType:)`` returned.
    func closeExportedBuffer(_ descriptor: Int32)
    /// Wraps VIDIOC_QBUF.
    func queueBuffer(index: Int, bufferType: V4L2BufferType) throws(CaptureError)
    /// Wraps VIDIOC_DQBUF; nil when no buffer is ready (`EAGAIN`).
    func dequeueBuffer(bufferType: V4L2BufferType) throws(CaptureError) -> V4L2DequeuedBuffer?
    /// Wraps VIDIOC_STREAMON.
    func streamOn(bufferType: V4L2BufferType) throws(CaptureError)
    /// Wraps VIDIOC_STREAMOFF.
    func streamOff(bufferType: V4L2BufferType) throws(CaptureError)
    /// Wraps poll(2) for a filled buffer.
    func poll(timeoutMilliseconds: Int32) throws(CaptureError) -> V4L2PollResult
    /// Closes the node; later calls fail.
    func close()
}

/// Opens nodes; the real one opens `/dev/video*`, tests hand out scripted nodes.
protocol V4L2DeviceOpener: Sendable {
    /// Opens `path` for capture (non-blocking).
    func open(_ path: String) throws(CaptureError) -> any V4L2DeviceIO
    /// Whether the node `path` exists now.
    func nodeExists(_ path: String) -> Bool
}
