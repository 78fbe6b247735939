import Foundation
import Testing
@testable import CaptureKit

/// Destinations: the protocol from the URL, and secrets that never show.
@Suite(.excludable)
struct StreamDestinationTests {
    @Test(arguments: [
        ("rtmp://live.example.com/app/sk_live_4f9a8b7c", StreamDestination.Kind.rtmp, "rtmp://live.example.com/app/***", "sk_live_4f9a8b7c"),
        ("rtmps://live.example.com:443/app/sub/key-12345", .rtmps, "rtmps://live.example.com:443/app/***", "key-12345"),
        ("srt://10.0.0.5:9000?mode=caller&passphrase=correct-horse-battery", .srt,
         "srt://10.0.0.5:9000?mode=caller&passphrase=***&pkt_size=1316&linger=1", "correct-horse-battery"),
        ("srt://:9000?mode=listener&streamid=%23!::r=live/cam,m=publish", .srt, "srt://:9000?mode=listener&streamid=***&pkt_size=1316&linger=1", "#!::r=live/cam,m=publish"),
        ("rtsp://admin:hunter2xyz@192.168.1.20:8554/cam", .rtsp, "rtsp://admin:***@192.168.1.20:8554/cam", "hunter2xyz"),
    ])
    func theProtocolFollowsFromTheURLAndSecretsAreRedacted(url: String, kind: StreamDestination.Kind, shown: String, secret: String) throws {
        let destination = try StreamDestination(url)
        #expect(destination.kind == kind)
        #expect(destination.description == shown)
        #expect(!destination.description.contains(secret))
        #expect(!"\(destination)".contains(secret))
        #expect(!String(reflecting: StreamEvent.connected(destination)).contains(secret))
        // Whatever the C libraries log with the secret in it reaches no handler.
        #expect(!CaptureLog.redacted("[rtmp @ 0x1] publishing \(secret) to \(url)").contains(secret))
    }

    @Test func rtspTakesItsTransportFromTheQuery() throws {
        let destination = try StreamDestination("rtsp://127.0.0.1:8554/cam?transport=udp")
        #expect(destination.rtspTransport == .udp)
        #expect(destination.address == "rtsp://127.0.0.1:8554/cam")
        #expect(throws: CaptureError.self) { try StreamDestination("rtsp://127.0.0.1/cam?transport=carrier-pigeon") }
    }

    @Test func anHLSPlaylistIsAFileInAWritableFolder() throws {
        let folder = FileManager.default.temporaryDirectory.path
        let destination = try StreamDestination("\(folder)/live.m3u8")
        #expect(destination.kind == .hls && destination.formatName == "hls")
        #expect(try StreamDestination("file://\(folder)/live.m3u8").address == "\(folder)/live.m3u8")
        let missing = #expect(throws: CaptureError.self) { try StreamDestination("/no/such/folder/live.m3u8") }
        #expect(missing?.code == .fileError)
        let notPlaylist = #expect(throws: CaptureError.self) { try StreamDestination("\(folder)/live.mp4") }
        #expect(notPlaylist?.code == .invalidArgument)
    }

    @Test func anUnknownSchemeIsATypedErrorThatShowsNoSecret() {
        let error = #expect(throws: CaptureError.self) { try StreamDestination("webrtc://host/app/secret-key-987") }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("secret-key-987") == false)
        #expect(throws: CaptureError.self) { try StreamDestination("not a url at all") }
    }

    @Test func srtDestinationsAreBuiltWithTheirOptions() throws {
        let caller = try StreamDestination.srt(host: "127.0.0.1", port: 9000, latencyMilliseconds: 200, passphrase: "0123456789abc")
        #expect(caller.address.contains("mode=caller") && caller.address.contains("latency=200000") && caller.address.contains("passphrase=0123456789abc"))
        #expect(!caller.description.contains("0123456789abc"))
        let listener = try StreamDestination.srt(host: "ignored", port: 9001, mode: .listener)
        #expect(listener.isListener && listener.address.hasPrefix("srt://:9001"))
        #expect(throws: CaptureError.self) { try StreamDestination.srt(host: "h", port: 1, passphrase: "short") }
    }
}
