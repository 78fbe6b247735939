import CaptureKit
internal import CMicroHTTPD
import Foundation
import Glibc

/// The web preview's HTTP server: GNU libmicrohttpd with a thread per connection (so a viewer
/// waiting for frames or reading slowly holds up only its own thread), bound to one address.
/// Parses nothing itself: libmicrohttpd hands over the method, path and query values.
final class WebPreviewServer: @unchecked Sendable {
    // Unchecked Sendable: owns the libmicrohttpd daemon; mutable state behind its lock.
    /// A request as the routes see it.
    struct Request: Sendable {
        var method: String
        var path: String
        /// The `token` query value.
        var token: String?
        /// The `Host` and `Origin` headers.
        var host: String?
        var origin: String?
        /// Whether a body follows (a `Content-Length` above 0, or a `Transfer-Encoding`).
        var hasBody = false
        /// The `Range` header, for a route that answers with a file.
        var range: String?
    }

    /// What a route answers.
    enum Response: Sendable {
        case body(status: Int, contentType: String, Data)
        case stream(MJPEGViewer)
        /// A file, whole or the part `range` (the request's `Range` header) asks for; read by
        /// libmicrohttpd straight from the file (sendfile), however large.
        case file(URL, contentType: String, range: String?)

        static func json(_ status: Int, _ data: Data) -> Response { .body(status: status, contentType: "application/json", data) }
        static func text(_ status: Int, _ message: String) -> Response {
            .body(status: status, contentType: "text/plain; charset=utf-8", Data((message + "\n").utf8))
        }
    }

    private let gate: WebPreviewGate
    private let route: @Sendable (Request) -> Response
    private var daemon: OpaquePointer?
    /// The port the server listens on.
    private(set) var port = 0

    /// Starts listening on `address` (an IPv4 or IPv6 literal) and `port` (0: any free port).
    /// Wraps MHD_start_daemon.
    /// Every request passes `gate` on its headers alone, before any body is read.
    init(address: String, port: Int, connectionLimit: Int, gate: WebPreviewGate,
         route: @escaping @Sendable (Request) -> Response) throws(CaptureError) {
        self.gate = gate
        self.route = route
        guard (0...65535).contains(port) else { throw .invalidArgument("port \(port) is out of range (0...65535)") }
        try loadSharedLibrary("libmicrohttpd", ck_mhd_load)
        var storage = sockaddr_storage()
        var ipv4 = in_addr(), ipv6 = in6_addr()
        if inet_pton(AF_INET, address, &ipv4) == 1 {
            withUnsafeMutableBytes(of: &storage) { raw in
                let socket = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                socket.pointee.sin_family = sa_family_t(AF_INET)
                socket.pointee.sin_port = in_port_t(UInt16(port).bigEndian)
                socket.pointee.sin_addr = ipv4
            }
        } else if inet_pton(AF_INET6, address, &ipv6) == 1 {
            withUnsafeMutableBytes(of: &storage) { raw in
                let socket = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                socket.pointee.sin6_family = sa_family_t(AF_INET6)
                socket.pointee.sin6_port = in_port_t(UInt16(port).bigEndian)
                socket.pointee.sin6_addr = ipv6
            }
        } else {
            throw .invalidArgument("'\(address)' is not an IPv4 or IPv6 address to bind the web preview to")
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        let started = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                ck_mhd_start(address, UInt32(connectionLimit), Self.accessHandler, context)
            }
        }
        guard let started else {
            throw CaptureError(.systemCallFailed, "cannot listen on \(address) port \(port) (in use, or not an address of this machine)",
                               errno: errno, operation: "MHD_start_daemon")
        }
        daemon = started
        self.port = Int(ck_mhd_bound_port(started))
    }

    /// Stops listening and waits for every connection thread to end; content readers must have
    /// been told to finish first (they wait for frames). Wraps MHD_stop_daemon.
    func stop() {
        if let daemon { MHD_stop_daemon(daemon) }
        daemon = nil
    }

    deinit { stop() }

    // MARK: libmicrohttpd callbacks

    /// Marks a connection whose first call has been seen: the body (if any) is read before the
    /// answer, and an empty POST still makes a second call.
    nonisolated(unsafe) private static let seen = UnsafeMutableRawPointer(bitPattern: 1)

    private static let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, _, uploadSize, state in
        guard let context, let connection, let url, let method, let state, let uploadSize else { return .NO }
        let server = Unmanaged<WebPreviewServer>.fromOpaque(context).takeUnretainedValue()
        func value(_ kind: MHD_ValueKind, _ key: String) -> String? {
            MHD_lookup_connection_value(connection, kind, key).map { String(cString: $0) }
        }
        if state.pointee == nil {
            // The first call has the headers only: refusals are answered now, the connection
            // closed after them, and a body (which no route takes) never read.
            state.pointee = seen
            let length = value(.HEADER_KIND, "Content-Length").flatMap { Int($0) } ?? 0
            let request = Request(method: String(cString: method), path: String(cString: url), token: value(.GET_ARGUMENT_KIND, "token"),
                                  host: value(.HEADER_KIND, "Host"), origin: value(.HEADER_KIND, "Origin"),
                                  hasBody: length > 0 || value(.HEADER_KIND, "Transfer-Encoding") != nil)
            if let refusal = server.gate.refusal(for: request) { return server.answer(connection, with: refusal, closing: true) }
            return .YES
        }
        if uploadSize.pointee > 0 {
            uploadSize.pointee = 0   // not reached: the gate refused every request with a body
            return .YES
        }
        let request = Request(method: String(cString: method), path: String(cString: url), token: value(.GET_ARGUMENT_KIND, "token"),
                              range: value(.HEADER_KIND, "Range"))
        return server.answer(connection, with: server.route(request))
    }

    private func answer(_ connection: OpaquePointer, with response: Response, closing: Bool = false) -> MHD_Result {
        let made: OpaquePointer?
        let status: Int
        switch response {
        case .file(let url, let contentType, let range):
            guard let file = FileAnswer(url: url, range: range) else {
                return answer(connection, with: .text(404, "\(url.lastPathComponent) is gone"), closing: closing)
            }
            guard let part = file.part else {
                let refusal = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
                if let refusal { MHD_add_response_header(refusal, "Content-Range", "bytes */\(file.size)") }
                return queue(refusal, status: 416, on: connection, closing: closing)
            }
            status = part.count == file.size ? 200 : 206
            // The response owns the descriptor once made, and closes it when destroyed.
            made = MHD_create_response_from_fd_at_offset64(UInt64(part.count), file.descriptor, UInt64(part.start))
            if made == nil { close(file.descriptor) }
            if let made {
                MHD_add_response_header(made, "Content-Type", contentType)
                MHD_add_response_header(made, "Accept-Ranges", "bytes")
                if status == 206 { MHD_add_response_header(made, "Content-Range", part.contentRange(of: file.size)) }
            }
        case .body(let code, let contentType, let data):
            status = code
            made = data.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            }
            if let made { MHD_add_response_header(made, "Content-Type", contentType) }
        case .stream(let viewer):
            status = 200
            let context = Unmanaged.passRetained(viewer).toOpaque()
            made = MHD_create_response_from_callback(UInt64.max, 64 * 1024, Self.readStream, context, Self.endStream)
            if let made {
                MHD_add_response_header(made, "Content-Type", "multipart/x-mixed-replace; boundary=\(JPEGBroadcast.boundary)")
            } else {
                Unmanaged<MJPEGViewer>.fromOpaque(context).release()
            }
        }
        return queue(made, status: status, on: connection, closing: closing)
    }

    /// Queues `made` with the headers every answer carries, and releases it.
    private func queue(_ made: OpaquePointer?, status: Int, on connection: OpaquePointer, closing: Bool) -> MHD_Result {
        guard let made else { return .NO }
        // The token is in the URL: never cached, never sent on as a referrer.
        MHD_add_response_header(made, "Cache-Control", "no-store")
        MHD_add_response_header(made, "Referrer-Policy", "no-referrer")
        MHD_add_response_header(made, "X-Content-Type-Options", "nosniff")
        if closing { MHD_add_response_header(made, "Connection", "close") }
        let result = MHD_queue_response(connection, UInt32(status), made)
        MHD_destroy_response(made)
        return result
    }

    private static let readStream: MHD_ContentReaderCallback = { context, _, buffer, capacity in
        guard let context, let buffer else { return ck_mhd_end_with_error() }
        let viewer = Unmanaged<MJPEGViewer>.fromOpaque(context).takeUnretainedValue()
        return viewer.read(into: UnsafeMutableRawPointer(buffer), capacity: capacity) ?? ck_mhd_end_of_stream()
    }

    private static let endStream: MHD_ContentReaderFreeCallback = { context in
        guard let context else { return }
        let viewer = Unmanaged<MJPEGViewer>.fromOpaque(context).takeRetainedValue()
        viewer.finish()
    }
}
