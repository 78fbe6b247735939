import Foundation
import Testing
@testable import CaptureKit

/// Where the PipeWire daemon is: what the PipeWire camera backend connects to and what decides
/// whether the sound-server backend records through PipeWire's own stream.
@Suite(.excludable)
struct PipeWireDaemonAddressTests {
    @Test func pipeWireRemoteComesFirstThenTheRuntimeFoldersSocket() throws {
        let scratch = try PhotoScratch()
        #expect(PipeWireDaemonAddress.current(in: ["PIPEWIRE_REMOTE": "/elsewhere/pipewire-1", "XDG_RUNTIME_DIR": scratch.path])
                == "/elsewhere/pipewire-1")
        #expect(PipeWireDaemonAddress.current(in: ["XDG_RUNTIME_DIR": scratch.path]) == nil, "no socket in the runtime folder")
        #expect(FileManager.default.createFile(atPath: scratch.path + "/pipewire-0", contents: nil))
        #expect(PipeWireDaemonAddress.current(in: ["XDG_RUNTIME_DIR": scratch.path, "PIPEWIRE_REMOTE": ""]) == scratch.path + "/pipewire-0",
                "an empty PIPEWIRE_REMOTE counts as unset")
        #expect(PipeWireDaemonAddress.current(in: ["PIPEWIRE_RUNTIME_DIR": scratch.path, "XDG_RUNTIME_DIR": "/nowhere"]) == scratch.path + "/pipewire-0")
        #expect(PipeWireDaemonAddress.current(in: [:]) == nil)
    }
}
