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
    /// The platform driver (`/sys/bus/platform/drivers/…`) and the device it serves.
    var platformDriver: String
    var platformDevice: String
    /// The options the harness loaded the module with.
    var options: [String]

    static let vivid = KernelDriver(module: "vivid", file: "vivid.ko", platformDriver: "vivid",
                                    platformDevice: "vivid.0",
                                    options: (environment["CAPTUREKIT_VM_VIVID_OPTIONS"] ?? "").split(separator: " ").map(String.init))
    /// snd-aloop, as scripts/vm/guest-init.sh loads it.
    static let loopbackSoundCard = KernelDriver(module: "snd_aloop", file: "snd-aloop.ko",
                                                platformDriver: "snd_aloop", platformDevice: "snd_aloop.0", options: ["pcm_substreams=1"])

    private static let environment = ProcessInfo.processInfo.environment

    var description: String { module }

    /// Takes the driver off its device: the device's nodes go away under their open handles.
    /// (For a sound card the kernel returns only once every handle of the card is closed.)
    func unbind() throws { try Self.write(platformDevice, to: "\(driverDirectory)/unbind") }

    /// Gives the device back to the driver: its nodes come back.
    func bind() throws { try Self.write(platformDevice, to: "\(driverDirectory)/bind") }

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

    /// `insmod` of the module file with the harness's options; its devices exist when it returns.
    func load() throws {
        let directory = try #require(Self.environment["CAPTUREKIT_VM_MODULES"], "the VM harness names no module directory")
        try FileFixtures.run("insmod", ["\(directory)/\(file)"] + options)
    }

    private var driverDirectory: String { "/sys/bus/platform/drivers/\(platformDriver)" }

    /// One write(2) of `value` to a sysfs attribute, which answers with an errno, not a partial write.
    private static func write(_ value: String, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CaptureError(.fileError, "cannot open \(path)", errno: errno, operation: "open", path: path) }
        defer { close(fd) }
        let written = value.withCString { Glibc.write(fd, $0, strlen($0)) }
        guard written >= 0 else { throw CaptureError(.systemCallFailed, "writing '\(value)' to \(path) failed", errno: errno, operation: "write", path: path) }
    }
}
