import Foundation
import Glibc
import Synchronization

/// A viewer of the MJPEG stream over a plain socket, reading `chunk` bytes at a time with
/// `pause` between reads: with a pause it is a slow viewer whose socket buffers fill up (the
/// behaviour under test, not synchronisation). Counts the JPEG parts it has seen.
final class RawHTTPViewer: @unchecked Sendable {
    private let socket: Int32
    private let stopping = Atomic<Bool>(false)
    private let parts = Atomic<Int>(0)
    private let done = DispatchSemaphore(value: 0)

    /// Connects to 127.0.0.1:`port` and asks for `path` (token included).
    init(port: Int, path: String, chunk: Int, pause: Double) throws {
        // A small receive buffer makes a slow reader push back on the server quickly.
        socket = try RawHTTPExchange.connect(port: port, receiveBuffer: 4096)
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        _ = request.withCString { send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        let thread = Thread { [self] in
            read(chunk: chunk, pause: pause)
            done.signal()
        }
        thread.start()
    }

    /// JPEG parts seen so far (by their Content-Type line).
    var partCount: Int { parts.load(ordering: .relaxed) }

    private func read(chunk: Int, pause: Double) {
        var buffer = [UInt8](repeating: 0, count: chunk)
        var tail: [UInt8] = []
        let marker = Array("Content-Type: image/jpeg".utf8)
        while !stopping.load(ordering: .relaxed) {
            let count = recv(socket, &buffer, chunk, 0)
            if count <= 0 { break }
            // Count markers in what arrived, including one split across two reads.
            let window = tail + buffer[0..<count]
            var index = 0
            while index + marker.count <= window.count {
                if window[index] == marker[0], Array(window[index..<index + marker.count]) == marker {
                    parts.add(1, ordering: .relaxed)
                    index += marker.count
                } else {
                    index += 1
                }
            }
            tail = Array(window.suffix(marker.count - 1))
            if pause > 0 { Thread.sleep(forTimeInterval: pause) }
        }
    }

    /// Hangs up and waits for the reading thread to end.
    func disconnect() {
        stopping.store(true, ordering: .relaxed)
        shutdown(socket, Int32(SHUT_RDWR))
        done.wait()
        close(socket)
    }
}
