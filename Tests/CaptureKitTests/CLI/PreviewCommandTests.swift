import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// `capture preview` as a user runs it: the web page's URL is printed and guarded by its
    /// token, Ctrl-C ends it cleanly, and a window without a display is a clear error.
    @Suite(.serialized, .tags(.childProcess))
    struct PreviewCommandTests {
        @Test(.enabled(if: PreviewPrerequisites.runnable(["curl"])))
        func webPrintsATokenURLServesTheStatusAndEndsOnInterrupt() throws {
            let executable = try #require(MovieFiles.captureExecutable, "the capture executable is built beside the tests (swift build --build-tests)")
            let library = FileFixtures.directory.appendingPathComponent("cli-web-\(UUID().uuidString.prefix(6))")
            let process = Process()
            process.executableURL = executable
            process.arguments = ["preview", "--web", "--device", "Virtual Camera", "--library", library.path]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            let page = try PrintedWebPage(readingFirstLineOf: output)
            #expect(page.url.hasPrefix("http://127.0.0.1:"))
            let token = page.token, base = page.base
            #expect(token.count == 32)

            let scratch = try PhotoScratch()
            let forbidden = try PhotoTools.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", base + "/status.json"], in: scratch)
            #expect(String(decoding: forbidden, as: UTF8.self) == "403")
            let status = try PhotoTools.run("curl", ["-s", "-f", base + "/status.json?token=" + token], in: scratch)
            let document = try #require(try JSONSerialization.jsonObject(with: status) as? [String: Any])
            #expect(document["device"] as? String == "Virtual Camera")
            #expect(document["controls"] as? Bool == true)

            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(rest.contains("received"), "\(rest)")
        }

        @Test func aWindowWithoutADisplayIsAClearError() throws {
            let executable = try #require(MovieFiles.captureExecutable, "the capture executable is built beside the tests (swift build --build-tests)")
            let process = Process()
            process.executableURL = executable
            process.arguments = ["preview", "--gravity", "fill"]
            var environment = ProcessInfo.processInfo.environment
            environment["DISPLAY"] = nil
            environment["WAYLAND_DISPLAY"] = nil
            process.environment = environment
            let errors = Pipe()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            try process.run()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 1)
            #expect(message.contains("no display"), "\(message)")
        }
    }
}
