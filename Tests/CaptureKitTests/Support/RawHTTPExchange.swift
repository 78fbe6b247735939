import Foundation
import Glibc

/// One HTTP exchange over a plain socket to 127.0.0.1, written byte for byte by the test (forged
/// headers, bodies that never come): what came back, and whether the server closed the
/// connection, within `timeout`.
struct RawHTTPExchange {
    /// Everything the server sent.
    var response: String
    /// Whether the server closed the connection (rather than the timeout ending the read).
    var closedByServer: Bool

    /// The status code of the response's first line, or nil.
    var status: Int? {
        let first = response.split(separator: "\r\n", maxSplits: 1).first ?? ""
        let parts = first.split(separator: " ")
        return parts.count >= 2 ? Int(parts[1]) : nil
    }

    /// Connects to 127.0.0.1:`port`, sends `request`, reads until the server closes or
    /// `timeout` seconds pass without data.
    static func send(_ request: String, port: Int, timeout: Int = 5) throws -> RawHTTPExchange {
        let socket = try connect(port: port)
        defer { close(socket) }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        _ = request.withCString { Glibc.send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var closed = false
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count == 0 { closed = true; break }
            if count < 0 { break }   // timed out (or reset)
            received += buffer[0..<count]
        }
        return RawHTTPExchange(response: String(decoding: received, as: UTF8.self), closedByServer: closed)
    }

    /// A TCP connection to 127.0.0.1:`port`, with a receive buffer of `receiveBuffer` bytes when
    /// given (set before connecting, so the window it advertises is small from the start).
    static func connect(port: Int, receiveBuffer: Int32? = nil) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ToolError(description: "socket failed: errno \(errno)") }
        if var size = receiveBuffer { setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw ToolError(description: "connect to port \(port) failed: errno \(errno)")
        }
        return socket
    }
}
