import Foundation

/// Which process holds a libcamera camera. Every libcamera process opens every camera's video
/// nodes when it starts, so open files cannot tell; the holder is the process with the POSIX
/// lock on the camera's media controller node (libcamera's `Camera::acquire` takes it with
/// lockf), as `/proc/locks` lists it.
enum LibCameraHolders {
    /// A process holding a camera.
    struct Holder: Sendable, Equatable {
        var pid: Int32
        var name: String
    }

    /// The process other than this one that acquired camera `id`, if it can be seen.
    static func holder(of id: String) -> Holder? {
        let inodes = Set(mediaNodes(of: id).compactMap { path -> UInt64? in
            var status = stat()
            return stat(path, &status) == 0 ? UInt64(status.st_ino) : nil
        })
        guard !inodes.isEmpty, let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return nil }
        let me = getpid()
        for line in locks.split(separator: "\n") {
            // "1: POSIX  ADVISORY  WRITE 1234 00:05:567 0 EOF": pid, then major:minor:inode.
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "POSIX", let pid = Int32(fields[4]), pid != me,
                  let inode = fields[5].split(separator: ":").last.flatMap({ UInt64($0) }), inodes.contains(inode) else { continue }
            let name = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            return Holder(pid: pid, name: name)
        }
        return nil
    }

    /// The `/dev/media*` nodes of the hardware the camera's video nodes belong to: a media
    /// device's sysfs directory lies inside the device it is of (`…/vimc.0/media4`), a video
    /// node's names that device as `device`.
    static func mediaNodes(of id: String) -> [String] {
        let devices = LibCameraNodes.videoNodes(of: id).compactMap { node in
            sysfsDirectory(ofCharacterDevice: node).map { URL(fileURLWithPath: "\($0)/device").resolvingSymlinksInPath().path }
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []
        return names.filter { $0.hasPrefix("media") }.map { "/dev/\($0)" }.filter { node in
            guard let directory = sysfsDirectory(ofCharacterDevice: node) else { return false }
            return devices.contains { directory.hasPrefix($0 + "/") }
        }
    }

    /// The sysfs directory of a character device node (`/sys/dev/char/M:m`, resolved).
    private static func sysfsDirectory(ofCharacterDevice path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        // glibc's major()/minor() are macros Swift cannot call.
        let device = UInt64(status.st_rdev)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        return URL(fileURLWithPath: "/sys/dev/char/\(major):\(minor)").resolvingSymlinksInPath().path
    }
}
