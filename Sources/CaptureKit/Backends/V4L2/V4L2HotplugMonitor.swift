internal import CV4L2
import Glibc

/// Watches `/dev` with inotify for video nodes coming and going (and changing permissions,
/// which udev does right after creating them) and calls `changed` after each burst.
final class V4L2HotplugMonitor: DeviceWatch {
    private let worker: WorkerThread

    /// Starts watching `directory`; `.systemCallFailed` when inotify is unavailable.
    init(directory: String = "/dev", changed: @escaping @Sendable () -> Void) throws(CaptureError) {
        let fd = try V4L2Syscall.perform("inotify_init1", path: directory) { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) } ?? -1
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO)
        do throws(CaptureError) {
            try V4L2Syscall.perform("inotify_add_watch", path: directory) { inotify_add_watch(fd, directory, mask) }
        } catch {
            close(fd)
            throw error
        }
        worker = WorkerThread(name: "CaptureKit.hotplug") { thread in
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !thread.isStopping {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 100) > 0 else { continue }
                var relevant = false
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    guard count > 0 else { break }
                    relevant = relevant || Self.mentionsVideoNode(buffer, count: count)
                }
                if relevant { changed() }
            }
        }
    }

    func stop() { worker.stop() }

    /// Whether a batch of inotify events names a `video*` node.
    static func mentionsVideoNode(_ buffer: [UInt8], count: Int) -> Bool {
        let header = MemoryLayout<inotify_event>.size
        var offset = 0
        while offset + header <= count {
            let length = buffer.withUnsafeBytes { Int($0.load(fromByteOffset: offset, as: inotify_event.self).len) }
            let nameBytes = buffer[(offset + header)..<min(count, offset + header + length)].prefix { $0 != 0 }
            if String(decoding: nameBytes, as: UTF8.self).hasPrefix("video") { return true }
            offset += header + length
        }
        return false
    }
}
