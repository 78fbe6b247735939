import Foundation
import Glibc
import Testing
@testable import CaptureKit

/// A kernel driver of the test VM that a test takes away and brings back, the way hardware and
/// administrators do: unbinding it from its platform device removes its devices under their
/// open handles (what a USB disconnect does to a camera or a sound card), binding it again
/// brings them back, and unloading and loading the module is a driver reload. The module files
/// and vivid's options come from the harness (`CAPTUREKIT_VM_MODULES`,
/// `CAPTUREKIT_VM_VIVID_OPTIONS`).
struct KernelDriver: CustomStringConvertible {
    /// The module's name in /sys/module (underscores).
    var module: String
    /// The module file, in the directory the harness copied it to.
    var file: String
    /// The platform driver (`/sys/bus/platform/drivers/…`) and the device it serves; nil for a
    /// module with no platform device (it can only be unloaded and loaded).
    var platform: (driver: String, device: String)?
    /// The options the harness loaded the module with.
    var options: [String]

    static let vivid = KernelDriver(module: "vivid", file: "vivid.ko", platform: ("vivid", "vivid.0"),
                                    options: (environment["CAPTUREKIT_VM_VIVID_OPTIONS"] ?? "").split(separator: " ").map(String.init))
    /// snd-aloop, as scripts/vm/guest-init.sh loads it.
    static let loopbackSoundCard = KernelDriver(module: "snd_aloop", file: "snd-aloop.ko",
                                                platform: ("snd_aloop", "snd_aloop.0"), options: ["pcm_substreams=1"])
    /// v4l2loopback, as scripts/vm/guest-init.sh loads it.
    static let loopbackCamera = KernelDriver(module: "v4l2loopback", file: "v4l2loopback.ko", platform: nil,
                                             options: ["video_nr=10", "exclusive_caps=1", "card_label=\"CaptureKit Loopback\""])

    /// vimc (guest-prologue.sh's load_vimc), libcamera's camera.
    static let vimc = KernelDriver(module: "vimc", file: "vimc.ko", platform: ("vimc", "vimc.0"), options: [])
    /// vivid_uvc (guest-prologue.sh's load_vivid_uvc), the camera libcamera's uvcvideo handler takes.
    static let vividUVC = KernelDriver(module: "vivid_uvc", file: "vivid_uvc.ko", platform: ("vivid_uvc", "vivid_uvc.0"), options: [])

    private static let environment = ProcessInfo.processInfo.environment

    var description: String { module }

    /// Takes the driver off its device: the device's nodes go away under their open handles.
    /// (For a sound card the kernel returns only once every handle of the card is closed.)
    func unbind() throws {
        let platform = try #require(platform, "\(module) has no platform device")
        try Self.write(platform.device, to: "/sys/bus/platform/drivers/\(platform.driver)/unbind")
    }

    /// Gives the device back to the driver: its nodes come back.
    func bind() throws {
        let platform = try #require(platform, "\(module) has no platform device")
        try Self.write(platform.device, to: "/sys/bus/platform/drivers/\(platform.driver)/bind")
    }

    /// Whether `module` is loaded and nothing holds it.
    private static func isUnused(_ module: String) -> Bool {
        (try? String(contentsOfFile: "/sys/module/\(module)/refcnt", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == "0"
    }

    /// Waits until nothing holds the module any more (the kernel posts no event for that).
    func waitUntilUnused(timeout: Duration = .seconds(20)) async -> Bool {
        let module = module
        return await pollUntil(timeout: timeout) { Self.isUnused(module) }
    }

    /// `rmmod`: refused while anything holds the module.
    func unload() throws { try FileFixtures.run("rmmod", [module]) }

    /// `rmmod` once nothing holds the module. Someone looking at its nodes meanwhile (CaptureKit
    /// asks every node what it is while it waits for a camera) holds it for a moment, which can
    /// fail an attempt: up to five, each after the module was seen unused.
    func unloadWhenUnused() async throws {
        for _ in 1..<5 {
            if await waitUntilUnused(), (try? unload()) != nil { return }
        }
        try unload()
    }

    /// `insmod` of the module file with the harness's options; its devices exist when it returns.
    func load() throws {
        let directory = try #require(Self.environment["CAPTUREKIT_VM_MODULES"], "the VM harness names no module directory")
        try FileFixtures.run("insmod", ["\(directory)/\(file)"] + options)
    }

    /// One write(2) of `value` to a sysfs attribute, which answers with an errno, not a partial write.
    private static func write(_ value: String, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CaptureError(.fileError, "cannot open \(path)", errno: errno, operation: "open", path: path) }
        defer { close(fd) }
        let written = value.withCString { Glibc.write(fd, $0, strlen($0)) }
        guard written >= 0 else { throw CaptureError(.systemCallFailed, "writing '\(value)' to \(path) failed", errno: errno, operation: "write", path: path) }
    }
}
