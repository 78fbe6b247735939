import Foundation
import Glibc
import Testing
@testable import CaptureKit

/// The one syscall wrapper: EINTR storms, errno → typed error with the operation named,
/// EAGAIN as "would block", and the pid of whoever holds a busy device.
@Suite("V4L2Syscall", .excludable)
struct V4L2SyscallTests {
    @Test func eintrStormIsRetriedUntilTheCallGoesThrough() throws {
        var attempts = 0
        let result = try V4L2Syscall.perform("VIDIOC_DQBUF", path: "/dev/video9") {
            attempts += 1
            if attempts <= 5_000 { errno = EINTR; return -1 }
            return 7
        }
        #expect(result == 7)
        #expect(attempts == 5_001)
    }

    @Test func endlessEINTRBecomesAnErrorInsteadOfAHang() {
        var attempts = 0
        #expect {
            try V4L2Syscall.perform("VIDIOC_QBUF", path: "/dev/video9") { attempts += 1; errno = EINTR; return -1 }
        } throws: { error in
            let error = error as! CaptureError
            return error.code == .systemCallFailed && error.errno == EINTR && error.operation == "VIDIOC_QBUF"
        }
        #expect(attempts == V4L2Syscall.maximumInterruptions)
    }

    @Test(arguments: [
        (EBUSY, CaptureError.Code.deviceBusy, "in use by another process"),
        (EACCES, .notAuthorized, "'video' group"),
        (EPERM, .notAuthorized, "'video' group"),
        (ENODEV, .deviceDisconnected, "is gone"),
        (ENOMEM, .outOfMemory, "could not allocate"),
        (EIO, .systemCallFailed, "failed"),
    ])
    func errnoBecomesATypedErrorNamingTheIoctl(code: Int32, expected: CaptureError.Code, phrase: String) {
        do {
            try V4L2Syscall.perform("VIDIOC_S_FMT", path: "/dev/video9") { errno = code; return -1 }
            Issue.record("no error thrown")
        } catch {
            #expect(error.code == expected)
            #expect(error.errno == code)
            #expect(error.operation == "VIDIOC_S_FMT")
            #expect(error.path == "/dev/video9")
            #expect(error.message.contains(phrase), "\(error.message)")
        }
    }

    @Test func eagainMeansWouldBlockOnlyWhereExpected() throws {
        let result = try V4L2Syscall.perform("VIDIOC_DQBUF", path: "/dev/video9", allowWouldBlock: true) { errno = EAGAIN; return -1 }
        #expect(result == nil)
        #expect(throws: CaptureError.self) {
            try V4L2Syscall.perform("VIDIOC_DQBUF", path: "/dev/video9") { errno = EAGAIN; return -1 }
        }
    }

    @Test(.tags(.childProcess)) func busyErrorNamesTheProcessHoldingTheNode() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ck-busy-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/bin/sh")
        holder.arguments = ["-c", "exec 3<\"$0\"; echo ready; exec sleep 30", path]
        let pipe = Pipe()
        holder.standardOutput = pipe
        try holder.run()
        defer { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() }
        // The child says "ready" once it holds the file open.
        var line = [UInt8](repeating: 0, count: 16)
        let count = read(pipe.fileHandleForReading.fileDescriptor, &line, line.count)
        #expect(String(decoding: line.prefix(max(count, 0)), as: UTF8.self).hasPrefix("ready"))

        let holders = V4L2ProcessFinder.holders(of: path)
        #expect(holders.map(\.pid).contains(holder.processIdentifier))
        let error = V4L2Syscall.error(errno: EBUSY, operation: "VIDIOC_REQBUFS", path: path)
        #expect(error.code == .deviceBusy)
        #expect(error.message.contains("pid \(holder.processIdentifier)"), "\(error.message)")
    }
}
