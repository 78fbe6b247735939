import Foundation
import Glibc
import Testing

/// A server on 127.0.0.1 that misbehaves the ways broken cameras and servers do, one port per
/// behaviour, for the network cameras' bad-input table: garbage on connect, a connection closed
/// at once or never answered, HTTP errors and pages, multipart MJPEG and MPEG-TS cut short or
/// turned to noise, a playlist of missing segments, a byte every 200 ms, and RTSP servers that
/// answer with garbage, 500, 401 or a broken SDP.
final class HostileStreamServer: @unchecked Sendable {
    // Unchecked Sendable: immutable after start; the process's own lock guards stopping.
    enum Behaviour: String, CaseIterable {
        case garbage, close, silent, http404, http401, html, multipartTruncated, multipartNoise, tsTruncated
        case hlsMissingSegments, drip, rtspGarbage, rtsp500, rtsp401, rtspBadSDP
    }

    let ports: [Behaviour: Int]
    private let process: ChildProcess

    static func start() throws -> HostileStreamServer { try HostileStreamServer() }

    private init() throws {
        let directory = try serverDirectory("hostile")
        var ports: [Behaviour: Int] = [:]
        for behaviour in Behaviour.allCases { ports[behaviour] = try freeTCPPort() }
        self.ports = ports
        let script = "\(directory)/server.py"
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        let log = "\(directory)/server.log"
        let fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        defer { close(fd) }
        let arguments = [script] + Behaviour.allCases.map { "\($0.rawValue)=\(ports[$0] ?? 0)" }
        process = try ChildProcess(path: "/usr/bin/python3", arguments: arguments, environment: ProcessInfo.processInfo.environment,
                                   stdin: nil, stdout: fd, stderr: fd)
        try waitForServer("the hostile server", log: log) { ports.values.allSatisfy(tcpPortIsListening) }
    }

    deinit { stop() }

    func port(_ behaviour: Behaviour) -> Int { ports[behaviour] ?? 0 }

    func stop() { process.end(signal: SIGKILL) }

    private static let script = #"""
        import os, socket, sys, threading, time

        def noise(n):
            return os.urandom(n)

        def read_request(conn):
            data = b''
            conn.settimeout(5)
            try:
                while b'\r\n\r\n' not in data and len(data) < 65536:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
            except OSError:
                pass
            return data

        def cseq(request):
            for line in request.split(b'\r\n'):
                if line.lower().startswith(b'cseq:'):
                    return line.split(b':', 1)[1].strip()
            return b'1'

        JPEG_START = bytes([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]) + b'JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00'

        def serve(behaviour, conn):
            try:
                if behaviour == 'garbage':
                    conn.sendall(noise(4096))
                elif behaviour == 'close':
                    pass
                elif behaviour == 'silent':
                    time.sleep(30)
                elif behaviour == 'http404':
                    read_request(conn)
                    conn.sendall(b'HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n')
                elif behaviour == 'http401':
                    read_request(conn)
                    conn.sendall(b'HTTP/1.0 401 Unauthorized\r\nWWW-Authenticate: Basic realm="cam"\r\nContent-Length: 0\r\n\r\n')
                elif behaviour == 'html':
                    read_request(conn)
                    body = b'<html><body>Camera login</body></html>'
                    conn.sendall(b'HTTP/1.0 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n' % len(body) + body)
                elif behaviour in ('multipartTruncated', 'multipartNoise'):
                    read_request(conn)
                    conn.sendall(b'HTTP/1.0 200 OK\r\nContent-Type: multipart/x-mixed-replace;boundary=frame\r\n\r\n')
                    part = JPEG_START + noise(2000) if behaviour == 'multipartTruncated' else noise(3000)
                    conn.sendall(b'--frame\r\nContent-Type: image/jpeg\r\nContent-Length: 40000\r\n\r\n' + part)
                elif behaviour == 'tsTruncated':
                    read_request(conn)
                    conn.sendall(b'HTTP/1.0 200 OK\r\nContent-Type: video/mp2t\r\n\r\n')
                    packet = bytes([0x47, 0x40, 0x00, 0x10]) + noise(184)
                    conn.sendall(packet * 3 + packet[:100])
                elif behaviour == 'hlsMissingSegments':
                    request = read_request(conn)
                    if b'.m3u8' in request.split(b'\r\n')[0]:
                        body = b'#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:1.0,\nseg0.ts\n#EXTINF:1.0,\nseg1.ts\n'
                        conn.sendall(b'HTTP/1.0 200 OK\r\nContent-Type: application/vnd.apple.mpegurl\r\nContent-Length: %d\r\n\r\n' % len(body) + body)
                    else:
                        conn.sendall(b'HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n')
                elif behaviour == 'drip':
                    read_request(conn)
                    for byte in b'HTTP/1.0 200 OK\r\nContent-Type: video/mp2t\r\n\r\n' + noise(200):
                        conn.sendall(bytes([byte]))
                        time.sleep(0.2)
                elif behaviour.startswith('rtsp'):
                    while True:
                        request = read_request(conn)
                        if not request:
                            break
                        seq = cseq(request)
                        method = request.split(b' ', 1)[0]
                        if behaviour == 'rtspGarbage':
                            conn.sendall(b'RTSP/1.0 200 OK\r\nCSeq: ' + seq + b'\r\n\r\n' + noise(2048))
                        elif behaviour == 'rtsp500':
                            conn.sendall(b'RTSP/1.0 500 Internal Server Error\r\nCSeq: ' + seq + b'\r\n\r\n')
                        elif behaviour == 'rtsp401':
                            conn.sendall(b'RTSP/1.0 401 Unauthorized\r\nCSeq: ' + seq + b'\r\nWWW-Authenticate: Basic realm="cam"\r\n\r\n')
                        elif method == b'OPTIONS':
                            conn.sendall(b'RTSP/1.0 200 OK\r\nCSeq: ' + seq + b'\r\nPublic: OPTIONS, DESCRIBE, SETUP, PLAY\r\n\r\n')
                        else:
                            sdp = b'v=0\r\nthis is not an sdp\r\nm=video banana\r\n' + noise(64).hex().encode()
                            conn.sendall(b'RTSP/1.0 200 OK\r\nCSeq: ' + seq + b'\r\nContent-Type: application/sdp\r\nContent-Length: %d\r\n\r\n' % len(sdp) + sdp)
            except OSError:
                pass
            finally:
                try:
                    conn.close()
                except OSError:
                    pass

        def listen(behaviour, port):
            server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind(('127.0.0.1', port))
            server.listen(16)
            while True:
                conn, _ = server.accept()
                threading.Thread(target=serve, args=(behaviour, conn), daemon=True).start()

        for argument in sys.argv[1:]:
            name, port = argument.split('=')
            threading.Thread(target=listen, args=(name, int(port)), daemon=True).start()
        while True:
            time.sleep(3600)
        """#
}
