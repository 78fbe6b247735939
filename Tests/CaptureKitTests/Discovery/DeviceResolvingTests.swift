import Foundation
import Glibc
import Testing
@testable import CaptureKit

/// `CaptureDevice.device(resolving:)`: the names Linux users type — node paths and their udev
/// links, ALSA card names — besides unique IDs and names. Over a made-up /dev and
/// /proc/asound; the kernel's own nodes and cards are resolved in the VM (see
/// `V4L2IntegrationTests.ResolvingTests`).
@Suite("DeviceResolving", .excludable)
struct DeviceResolvingTests {
    /// A made-up /dev whose video0 is a USB webcam and video1 its metadata node.
    private struct Tree {
        let root: URL
        let dev: String
        let devices: [CaptureDevice]

        init() throws {
            root = try V4L2DiscoveryTests.makeTree()
            dev = root.appendingPathComponent("dev").path
            let opener = V4L2DiscoveryTests.PathOpener([
                "\(dev)/video0": V4L2DiscoveryTests.script(card: "Webcam C270", bus: "usb-0000:00:14.0-1", caps: 0x0400_0001),
                "\(dev)/video1": V4L2DiscoveryTests.script(card: "Webcam C270", bus: "usb-0000:00:14.0-1", caps: 0x0480_0000),
            ])
            let provider = V4L2DeviceProvider(discovery: V4L2Discovery(devDirectory: dev, sysRoot: root.appendingPathComponent("sys").path, opener: opener))
            devices = DeviceRegistry(providers: [provider, VirtualDeviceProvider.shared]).devices()
        }

        func resolve(_ name: String, _ mediaType: MediaType? = nil) throws(CaptureError) -> CaptureDevice {
            try CaptureDevice.device(resolving: name, mediaType: mediaType, among: devices)
        }
    }

    @Test func nodePathsAndTheirLinksResolveToTheCamera() throws {
        let tree = try Tree()
        defer { try? FileManager.default.removeItem(at: tree.root) }
        let webcam = try #require(tree.devices.first { !$0.isVirtual })
        #expect(webcam.uniqueID == "v4l2:by-id:usb-Logitech_Webcam_C270_ABC123-video-index0")
        for name in ["\(tree.dev)/video0", "\(tree.dev)/v4l/by-id/usb-Logitech_Webcam_C270_ABC123-video-index0",
                     "\(tree.dev)/v4l/../video0", webcam.uniqueID, "webcam c270"] {
            #expect(try tree.resolve(name) === webcam, "\(name)")
            #expect(try tree.resolve(name, .video) === webcam, "\(name)")
        }
        #expect(try tree.resolve("virtual-front-camera").position == .front)
    }

    @Test func pathsThatAreNoCaptureNodeSaySo() throws {
        let tree = try Tree()
        defer { try? FileManager.default.removeItem(at: tree.root) }
        // video1 exists but is the webcam's metadata node, which discovery skips.
        let metadata = #expect(throws: CaptureError.self) { try tree.resolve("\(tree.dev)/video1") }
        #expect(metadata?.code == .deviceNotFound)
        #expect(metadata?.message.contains("is not a video-capture node") == true, "\(String(describing: metadata))")
        #expect(metadata?.message.contains("\(tree.dev)/video0 (Webcam C270)") == true, "names the capture nodes there are")
        // The index1 link leads to video1 too.
        let link = #expect(throws: CaptureError.self) { try tree.resolve("\(tree.dev)/v4l/by-id/usb-Logitech_Webcam_C270_ABC123-video-index1") }
        #expect(link?.code == .deviceNotFound)

        let missing = #expect(throws: CaptureError.self) { try tree.resolve("\(tree.dev)/video9") }
        #expect(missing?.code == .deviceNotFound)
        #expect(missing?.errno == ENOENT)
        #expect(missing?.message == "no camera at \(tree.dev)/video9")
        #expect(missing?.description.contains("No such file or directory") == true)

        let unknown = #expect(throws: CaptureError.self) { try tree.resolve("Door Camera", .video) }
        #expect(unknown?.code == .deviceNotFound)
        #expect(unknown?.message.contains("no video device 'Door Camera' (present: 'v4l2:by-id:") == true, "\(String(describing: unknown))")
    }

    /// A microphone asked for by a camera's path is no match, nor a camera by an ALSA name.
    @Test func theMediaTypeNarrowsTheSearch() throws {
        let tree = try Tree()
        defer { try? FileManager.default.removeItem(at: tree.root) }
        #expect(throws: CaptureError.self) { try tree.resolve("\(tree.dev)/video0", .audio) }
        #expect(throws: CaptureError.self) { try tree.resolve("webcam c270", .audio) }
        #expect(try tree.resolve("virtual microphone", .audio).uniqueID == "virtual-microphone")
        let camera = #expect(throws: CaptureError.self) { try tree.resolve("hw:0,0", .video) }
        #expect(camera?.message.contains("no video device 'hw:0,0'") == true)
    }

    /// Card numbers become card IDs, read where the kernel lists cards (`/proc/asound`).
    @Test func alsaCardNamesAreSpelledAsDiscoveryNamesThem() throws {
        let asound = FileManager.default.temporaryDirectory.appendingPathComponent("ck-asound-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        defer { try? FileManager.default.removeItem(at: asound) }
        for (card, id) in [(0, "PCH"), (1, "Loopback")] {
            try FileManager.default.createDirectory(at: asound.appendingPathComponent("card\(card)"), withIntermediateDirectories: true)
            try "\(id)\n".write(to: asound.appendingPathComponent("card\(card)/id"), atomically: true, encoding: .utf8)
        }
        let canonical: [String: String] = [
            "hw:1,0": "hw:CARD=Loopback,DEV=0",
            "hw:1": "hw:CARD=Loopback,DEV=0",
            "hw:0,3": "hw:CARD=PCH,DEV=3",
            "plughw:1,1": "plughw:CARD=Loopback,DEV=1",
            "hw:Loopback,1": "hw:CARD=Loopback,DEV=1",
            "hw:CARD=Loopback,DEV=1": "hw:CARD=Loopback,DEV=1",
            "hw:CARD=1,DEV=0": "hw:CARD=Loopback,DEV=0",
            "hw:DEV=2,CARD=PCH": "hw:CARD=PCH,DEV=2",
        ]
        for (typed, expected) in canonical {
            #expect(ALSACardName(typed, asoundRoot: asound.path)?.canonical == expected, "\(typed)")
        }
        for notACard in ["hw:7,0", "default", "pulse", "hw:", "hw:1,x", "hw:1,0,0", "hw:FOO=1", "dmix:1,0", "Virtual Camera"] {
            #expect(ALSACardName(notACard, asoundRoot: asound.path) == nil, "\(notACard)")
        }
    }
}
