import Dispatch
import Foundation
import Glibc
import Synchronization

/// A pseudo-terminal to give a child process as its standard error, for programs that report
/// progress only to a terminal (`capture record`'s progress line): the child sees a terminal,
/// the test reads every line it writes there (a line ends at "\r" or "\n") as it is written.
/// That turns the child's own progress reports into events a test can wait for, where the file
/// system offers none.
final class PseudoTerminal: Sendable {
    /// The lines the child wrote, in order.
    let lines = Recorder<String>()
    /// The child end, nil once this process's copy is closed.
    private let child: Mutex<Int32?>
    private let childDescriptor: Int32

    /// TIOCSPTLCK and TIOCGPTN (`_IOW('T', 0x31, int)`, `_IOR('T', 0x30, unsigned int)`), which
    /// Swift cannot import (function-like macros); the generic ioctl encoding of x86 and ARM.
    private static let setLock: UInt = 0x4004_5431
    private static let number: UInt = 0x8004_5430

    /// Opens the terminal and starts reading it.
    init() throws {
        // posix_openpt and friends need _XOPEN_SOURCE, which Swift's Glibc module lacks: the
        // same through /dev/ptmx and its ioctls.
        let controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard controller >= 0 else { throw ToolFailure(description: "cannot open /dev/ptmx: errno \(errno)") }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(controller, Self.setLock, &unlock) == 0, ioctl(controller, Self.number, &number) == 0 else {
            close(controller)
            throw ToolFailure(description: "cannot set up the pseudo-terminal: errno \(errno)")
        }
        let name = "/dev/pts/\(number)"
        let child = open(name, O_RDWR | O_NOCTTY)
        guard child >= 0 else {
            close(controller)
            throw ToolFailure(description: "cannot open \(name): errno \(errno)")
        }
        self.child = Mutex(child)
        childDescriptor = child
        let lines = lines
        // Reading ends when every holder of the child end has closed it (EIO): the child has
        // exited and ``childStarted()`` closed this process's copy.
        DispatchQueue.global().async {
            var pending = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(controller, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                for byte in buffer[..<count] {
                    if byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") {
                        if !pending.isEmpty { lines.append(String(decoding: pending, as: UTF8.self)) }
                        pending.removeAll(keepingCapacity: true)
                    } else {
                        pending.append(byte)
                    }
                }
            }
            if !pending.isEmpty { lines.append(String(decoding: pending, as: UTF8.self)) }
            close(controller)
        }
    }

    /// The child's end, for `Process.standardError`; call ``childStarted()`` once the child runs.
    var childEnd: FileHandle { FileHandle(fileDescriptor: childDescriptor, closeOnDealloc: false) }

    /// Closes this process's copy of the child end, so that reading ends when the child exits.
    func childStarted() {
        child.withLock { descriptor in
            if let open = descriptor { close(open) }
            descriptor = nil
        }
    }

    deinit {
        childStarted()
    }
}
