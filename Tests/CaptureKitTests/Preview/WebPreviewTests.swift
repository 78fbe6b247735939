import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests {
    /// The web preview against real clients: headless Chromium driven by Selenium, curl, and
    /// raw sockets reading slowly.
    @Suite(.serialized)
    struct WebPreviewTests {
        static let browserTools = ["chromium", "chromedriver", "ffprobe"]

        /// The browser script next to the test sources.
        static let browserScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Browser/web_preview_check.py").path

        static var browserRunnable: Bool {
            PreviewPrerequisites.isCI || (PreviewPrerequisites.installed(browserTools)
                && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/selenium"))
        }

        @Test(.enabled(if: browserRunnable))
        func aBrowserSeesThePictureAndItsButtonsFillTheLibrary() async throws {
            let camera = try makeTestCamera("web") { $0.frameRates = [30] }
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let root = FileFixtures.directory.appendingPathComponent("web-\(UUID().uuidString.prefix(6))")
            let manager = CaptureManager(library: try MediaLibrary(root: root))
            try manager.configureVideoInput(device: camera)
            let preview = try CaptureWebPreview(manager: manager)
            #expect(preview.isControlSupported)
            #expect(preview.url.host == "127.0.0.1")
            try await manager.startSession()

            let scratch = try PhotoScratch()
            let output = try PhotoTools.run("/usr/bin/python3", [Self.browserScript, preview.url.absoluteString], in: scratch)
            let seen = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any], "\(String(decoding: output, as: UTF8.self))")
            #expect(seen["pictureWidth"] as? Int == 320)
            #expect(seen["pictureChanged"] as? Bool == true)
            #expect((seen["device"] as? String)?.contains(camera.localizedName) == true, "\(seen)")
            #expect(seen["recordLabelWhileRecording"] as? String == "Stop")
            #expect(Set(seen["libraryKinds"] as? [String] ?? []) == ["photo", "video"], "\(seen)")
            #expect((seen["thumbnailWidths"] as? [Int] ?? []).allSatisfy { $0 > 0 && $0 <= 160 }, "\(seen)")
            #expect(seen["message"] as? String == "", "the page showed an error: \(seen)")

            // The library holds what the buttons made, and the movie is a real one.
            let photos = try manager.library.assets(kind: .photo)
            let movies = try manager.library.assets(kind: .video)
            #expect(photos.count == 1)
            #expect(movies.count == 1)
            let movie = try #require(movies.first)
            let probe = try PhotoTools.probe(movie.fileURL.path, in: scratch)
            #expect(probe.width == 320 && probe.height == 240)
            #expect(preview.statistics.framesEncoded > 0)
            preview.stop()
            try await manager.stopSession()
        }

        @Test(.enabled(if: PreviewPrerequisites.runnable(["curl"])))
        func requestsWithoutTheTokenAreForbidden() async throws {
            let camera = try makeTestCamera("web-token")
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let session = try makeSession(camera: camera, outputs: [])
            let preview = try CaptureWebPreview(session: session)
            #expect(!preview.isControlSupported)
            #expect(preview.accessToken.count == 32)
            try await session.start()
            let scratch = try PhotoScratch()
            let base = "http://127.0.0.1:\(preview.port)"
            func status(_ path: String, method: String = "GET") throws -> String {
                String(decoding: try PhotoTools.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", method, base + path], in: scratch),
                       as: UTF8.self)
            }
            let token = preview.accessToken
            #expect(try status("/") == "403")
            #expect(try status("/stream.mjpg") == "403")
            #expect(try status("/status.json?token=\(token.dropLast())x") == "403")
            #expect(try status("/photo", method: "POST") == "403")
            #expect(try status("/?token=\(token)") == "200")
            #expect(try status("/status.json?token=\(token)") == "200")
            // View-only: the buttons' endpoints say why they cannot work.
            #expect(try status("/photo?token=\(token)", method: "POST") == "409")
            #expect(try status("/nothing?token=\(token)") == "404")
            let frame = try PhotoTools.run("curl", ["-s", "-o", "\(scratch.path)/frame.jpg", "-w", "%{http_code}", "\(base)/frame.jpg?token=\(token)"], in: scratch)
            #expect(String(decoding: frame, as: UTF8.self) == "200")
            let probe = try PhotoTools.probe("\(scratch.path)/frame.jpg", in: scratch)
            #expect(probe.width == 320 && probe.height == 240)
            preview.stop()
            try await session.stop()
        }

        @Test func aBindAddressThatIsNoAddressIsAClearError() throws {
            let session = CaptureSession()
            var options = CaptureWebPreview.Options()
            options.bindAddress = "localhost:80"
            do throws(CaptureError) {
                _ = try CaptureWebPreview(session: session, options: options)
                Issue.record("'localhost:80' was taken as an address")
            } catch {
                #expect(error.code == .invalidArgument)
            }
        }

        @Test func tenSlowViewersLowerNeitherTheFrameRateNorAFastViewer() async throws {
            let camera = try makeTestCamera("web-slow") { $0.frameRates = [30] }
            defer { CaptureDevice.removeVirtualDevice(camera) }
            let frames = CaptureVideoDataOutput()
            let recorder = SampleRecorder()
            recorder.attach(to: frames)
            let session = try makeSession(camera: camera, outputs: [frames])
            let preview = try CaptureWebPreview(session: session)
            try await session.start()
            let path = "/stream.mjpg?token=\(preview.accessToken)"
            #expect(await recorder.samples.wait(forCount: 10))

            // Ten viewers reading 256 bytes a quarter second: about 1 KB/s each, far below
            // the stream's rate, so their socket buffers fill and their threads block in send.
            let slow = try (0..<10).map { _ in try RawHTTPViewer(port: preview.port, path: path, chunk: 256, pause: 0.25) }
            let fast = try RawHTTPViewer(port: preview.port, path: path, chunk: 65536, pause: 0)
            #expect(await waitUntil { preview.statistics.viewers == 11 })
            let start = recorder.samples.count
            let fastStart = fast.partCount
            let encodedStart = preview.statistics.framesEncoded
            let startTime = MonotonicClock.nanoseconds()
            #expect(await recorder.samples.wait(forCount: start + 60, timeout: .seconds(10)))
            let seconds = Double(MonotonicClock.nanoseconds() - startTime) / 1e9
            let captured = recorder.samples.count - start
            let rate = Double(captured) / seconds
            // 60 frames at 30 fps take 2 s; slow viewers must not stretch that.
            #expect(rate > 27, "the session delivered \(captured) frames in \(seconds) s with ten slow viewers")
            #expect(preview.statistics.framesPerSecond > 27, "\(preview.statistics)")
            let encoded = preview.statistics.framesEncoded - encodedStart
            #expect(encoded >= 50, "the preview encoded only \(encoded) of \(captured) frames")
            let fastParts = fast.partCount - fastStart
            #expect(fastParts >= 45, "the fast viewer got only \(fastParts) of \(captured) frames")
            // The slow viewers really were slow: each got only a few frames in that time.
            #expect(slow.allSatisfy { $0.partCount < 10 }, "\(slow.map(\.partCount))")

            for viewer in slow { viewer.disconnect() }
            fast.disconnect()
            #expect(await waitUntil { preview.statistics.viewers == 0 }, "disconnected viewers are noticed")
            #expect(preview.statistics.framesSkippedByViewers > 0)
            preview.stop()
            try await session.stop()
        }

        /// Polls a statistic for up to 10 s: the preview has no event for viewer counts.
        private func waitUntil(_ condition: @escaping @Sendable () -> Bool) async -> Bool {
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(10)
            while clock.now < deadline {
                if condition() { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return condition()
        }
    }
}
