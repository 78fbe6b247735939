import Foundation
import Glibc
import Testing
@testable import CaptureKit

/// Where the sound server is: the one answer both the sound-server backend and the ALSA backend
/// (which steps aside for a server) use.
@Suite(.excludable)
struct SoundServerAddressTests {
    @Test func pulseServerListsSocketsAndNetworkAddressesInOrder() {
        let address = SoundServerAddress(pulseServer: "{0123abcd}unix:/a/native /b/native\ttcp:192.0.2.1:4713 studio-box",
                                         runtimeDirectory: "/xdg", userID: 1000)
        #expect(address.endpoints == [.socket("/a/native"), .socket("/b/native"), .network("tcp:192.0.2.1:4713"), .network("studio-box")])
        #expect(address.mayBeReachable && address.isAnswering, "network servers are taken as reachable")
    }

    @Test func withoutPulseServerTheUserSocketComesFirstThenTheSystemWideOne() {
        #expect(SoundServerAddress(pulseServer: nil, runtimeDirectory: "/xdg", userID: 1000).endpoints
                == [.socket("/xdg/pulse/native"), .socket("/run/pulse/native"), .socket("/var/run/pulse/native")])
        #expect(SoundServerAddress(pulseServer: "", runtimeDirectory: "", userID: 1000).endpoints.first == .socket("/run/user/1000/pulse/native"),
                "empty variables count as unset")
    }

    @Test func aSocketCountsOnlyWhenSomeoneListens() throws {
        let scratch = try PhotoScratch()
        let path = scratch.path + "/native"
        let address = SoundServerAddress(pulseServer: "unix:\(path)", runtimeDirectory: nil, userID: getuid())
        #expect(!address.mayBeReachable && !address.isAnswering, "no socket file")

        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        #expect(address.mayBeReachable, "a socket file exists: worth a connection attempt")
        #expect(!address.isAnswering, "a socket nobody listens on refuses")
        try #require(listen(listener, 4) == 0)
        #expect(address.isAnswering)
    }

    /// A system-wide server (`pulseaudio --system` listens on `/run/pulse/native`) with no
    /// `PULSE_SERVER` and no user server: found by both backends' question. The ALSA backend
    /// used to look only at the user's socket and so listed the cards beside the server's
    /// sources. Here the "system-wide" socket is a real PulseAudio's, given as the system path.
    @Test(.tags(.soundServer, .childProcess))
    func aSystemWideServerIsFoundWithoutPulseServer() throws {
        guard try AudioDaemons.requireTools() else { return }
        let daemon = try AudioDaemons.startPulseAudio()
        defer { daemon.stop() }
        let socket = String(daemon.serverAddress.dropFirst("unix:".count))
        let noUserServer = try PhotoScratch()
        let address = SoundServerAddress(pulseServer: nil, runtimeDirectory: noUserServer.path, userID: getuid(),
                                         systemSockets: ["/nonexistent/pulse/native", socket])
        #expect(address.isAnswering, "ALSA's card devices stay out of discovery")
        #expect(address.mayBeReachable, "the sound-server backend connects")
        daemon.stop()
        #expect(!address.isAnswering, "a server that went away no longer answers")
    }
}
