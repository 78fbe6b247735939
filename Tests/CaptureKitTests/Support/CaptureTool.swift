import Foundation
import Glibc
import Testing

/// Runs the `capture` executable built beside the tests as a user would: in a folder of the
/// test's choosing, its output through files (no pipe to fill), killed if it outlives
/// `timeout` (a hang is a failure, never a stuck suite).
enum CaptureTool {
    struct Result: CustomStringConvertible {
        var status: Int32
        var output: String
        var errors: String
        var timedOut: Bool
        /// Whether `status` is the signal that ended the process rather than its exit status.
        var wasSignalled = false
        var description: String {
            "\(wasSignalled ? "killed by signal" : "exit") \(status)\(timedOut ? " (killed: timed out)" : ""); stdout: \(output); stderr: \(errors)"
        }
    }

    /// Runs `capture arguments`; with a `wrapper` (a program and its arguments, such as strace's),
    /// runs the wrapper with the `capture` executable and `arguments` after its own.
    static func run(_ arguments: [String], in directory: URL? = nil, through wrapper: [String] = [],
                    timeout: Duration = .seconds(60)) throws -> Result {
        let capture = try #require(MovieFiles.captureExecutable, "the capture executable is built beside the tests (swift build --build-tests)")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ck-capture-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("out"), errURL = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        if let program = wrapper.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = Array(wrapper.dropFirst()) + [capture.path] + arguments
        } else {
            process.executableURL = capture
            process.arguments = arguments
        }
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let timedOut = exited.wait(timeout: .now() + seconds) == .timedOut
        if timedOut { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      output: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
                      errors: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "", timedOut: timedOut,
                      wasSignalled: process.terminationReason == .uncaughtSignal)
    }
}

/// The web page a running `capture … --web` printed the address of.
struct PrintedWebPage {
    /// The full URL as printed, token included.
    var url: String
    /// `http://127.0.0.1:PORT`, to append paths to.
    var base: String
    /// The URL's access token.
    var token: String

    /// Reads `output` (the process's standard output) up to the first line, which must hold
    /// the page's URL: printing it is the readiness event, as the server listens before.
    init(readingFirstLineOf output: Pipe) throws {
        var text = ""
        while !text.contains("\n") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        url = try #require(text.split(separator: " ").first { $0.hasPrefix("http://") }
            .map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }, "no URL in: \(text)")
        let components = try #require(URLComponents(string: url))
        token = try #require(components.queryItems?.first { $0.name == "token" }?.value)
        base = "http://127.0.0.1:\(components.port ?? 0)"
    }
}
