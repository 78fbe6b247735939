import Foundation
import Glibc
import Testing
@testable import CaptureKit

/// The network cameras' bad-input table: URLs that are not cameras and servers that misbehave
/// (`HostileStreamServer`), each a typed error within the connect timeout, never a crash or a
/// hang, never the URL's secret in the message.
@Suite(.serialized, .tags(.childProcess), .excludable)
struct HostileNetworkCameraTests {
    typealias Behaviour = HostileStreamServer.Behaviour
    static let secret = "hunter2-9f8e"
    static let unparsableSecret = "only-here-\(UInt32.random(in: 1000...9999))"

    /// A second to connect, a second of silence: every case is over well within ten seconds.
    static var impatient: NetworkCameraOptions {
        var options = NetworkCameraOptions()
        options.connectTimeout = .seconds(1)
        options.stallTimeout = .seconds(1)
        return options
    }

    struct Case: CustomStringConvertible {
        var url: String
        var codes: Set<CaptureError.Code>
        var options = HostileNetworkCameraTests.impatient
        var secret = HostileNetworkCameraTests.secret
        var description: String { url.replacingOccurrences(of: secret, with: "SECRET") }
    }

    /// The table: not URLs; each misbehaving server under the schemes that would meet it; RTSP
    /// servers that answer wrongly, with and without credentials, over TCP and UDP.
    static func cases(_ server: HostileStreamServer, closedPort: Int, closedUDPPort: Int) -> [Case] {
        let failed: Set<CaptureError.Code> = [.connectionFailed]
        let unreadable: Set<CaptureError.Code> = [.connectionFailed, .unsupportedFormat]
        var table: [Case] = [
            "", " ", "camera", "rtsp", "rtsp:/127.0.0.1/cam", "://127.0.0.1/cam", "mailto:cam@example.com",
            "file:///dev/null", "/dev/video0", "ftp://127.0.0.1/cam", "gopher://127.0.0.1/cam", "http://",
            "rtsp://", "rtmp:///live/\(secret)", "rtsp://[::1/cam",
        ].map { Case(url: $0, codes: [.invalidArgument]) }
        // A password in a URL nothing can parse: a secret of its own, which no earlier case has
        // registered for redaction.
        table.append(Case(url: "rtsp://viewer:\(unparsableSecret)@[::1/cam", codes: [.invalidArgument], secret: unparsableSecret))
        for scheme in ["rtsp", "rtmp", "http", "tcp"] {
            table.append(Case(url: "\(scheme)://viewer:\(secret)@127.0.0.1:\(closedPort)/cam", codes: failed))
            for behaviour in [Behaviour.garbage, .close, .silent] {
                table.append(Case(url: "\(scheme)://viewer:\(secret)@127.0.0.1:\(server.port(behaviour))/live/\(secret)",
                                  codes: behaviour == .silent ? failed : unreadable))
            }
        }
        for path in ["stream", "video.mjpg", "live.m3u8", "cam.ts"] {
            table.append(Case(url: "http://127.0.0.1:\(server.port(.http404))/\(path)?token=\(secret)", codes: failed))
            table.append(Case(url: "http://viewer:\(secret)@127.0.0.1:\(server.port(.http401))/\(path)", codes: [.notAuthorized]))
            table.append(Case(url: "http://127.0.0.1:\(server.port(.html))/\(path)", codes: unreadable))
        }
        for behaviour in [Behaviour.multipartTruncated, .multipartNoise, .tsTruncated, .drip] {
            table.append(Case(url: "http://127.0.0.1:\(server.port(behaviour))/stream?key=\(secret)", codes: unreadable))
        }
        table.append(Case(url: "http://127.0.0.1:\(server.port(.hlsMissingSegments))/live.m3u8", codes: unreadable))
        for transport in [RTSPTransport.tcp, .udp] {
            var options = impatient
            options.rtspTransport = transport
            for (behaviour, codes) in [(Behaviour.rtspGarbage, unreadable), (.rtsp500, unreadable), (.rtsp401, [.notAuthorized]), (.rtspBadSDP, unreadable)] {
                table.append(Case(url: "rtsp://viewer:\(secret)@127.0.0.1:\(server.port(behaviour))/cam", codes: codes, options: options))
            }
        }
        // Nothing at all on UDP: no packet within the connect timeout.
        table.append(Case(url: "udp://127.0.0.1:\(closedUDPPort)", codes: failed))
        table.append(Case(url: "srt://127.0.0.1:\(closedUDPPort)?mode=caller&passphrase=\(secret)-long-enough", codes: failed))
        return table
    }

    @Test func everyBadInputIsATypedErrorWithinTheTimeout() throws {
        let server = try HostileStreamServer.start()
        defer { server.stop() }
        let table = Self.cases(server, closedPort: try freeTCPPort(), closedUDPPort: try freeUDPPort())
        #expect(table.count >= 50, "\(table.count) cases")
        for entry in table {
            let start = MonotonicClock.nanoseconds()
            let error = #expect(throws: CaptureError.self, "\(entry)") { try CaptureDevice.networkCamera(url: entry.url, options: entry.options) }
            let seconds = Double(MonotonicClock.nanoseconds() - start) / 1e9
            guard let error else { continue }
            #expect(entry.codes.contains(error.code), "\(entry): \(error.code): \(error)")
            #expect(!"\(error)".contains(entry.secret), "\(entry): \(error)")
            // The connect timeout is 1 s; what FFmpeg does around it (a DNS-free connect, the
            // TEARDOWN it tries) stays within a few more.
            #expect(seconds < 6, "\(entry) took \(seconds) s")
        }
    }
}
