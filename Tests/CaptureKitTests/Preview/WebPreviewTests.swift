import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitPreview

extension RealTimeCaptureTests {
    /// The web preview against real clients: headless Chromium driven by Selenium, curl, and
    /// raw sockets reading slowly.
    @Suite(.serialized)
    struct WebPreviewTests {
        static let browserTools = ["chromium", "chromedriver", "ffprobe"]

        /// The browser script beside the test sources (Tests/Browser, two levels up from this file).
        static let browserScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Browser/web_preview_check.py").path

        static var browserRunnable: Bool {
            PreviewPrerequisites.isCI || (PreviewPrerequisites.installed(browserTools)
                && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/selenium"))
        }

        @Test(.tags(.browser, .childProcess), .enabled(if: browserRunnable))
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

        @Test(.tags(.childProcess), .enabled(if: PreviewPrerequisites.runnable(["curl"])))
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

        /// Slow viewers block only their own connection threads: capture, the encoder and a fast
        /// viewer keep the pace they had on this machine a moment before, measured on this run
        /// (a loaded machine's pace is its own business). A viewer that held any of them up
        /// would bring them to a frame or two in the window: a slow viewer takes about ten
        /// seconds to read one frame.
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
            #expect(await recorder.samples.wait(forCount: 10, timeout: .seconds(30)))
            let fast = try RawHTTPViewer(port: preview.port, path: path, chunk: 65536, pause: 0)
            #expect(await pollUntil { preview.statistics.viewers == 1 })

            /// 60 frames of capture, with what the encoder and the fast viewer made of them.
            func window() async throws -> WindowMeasure {
                let encoded = preview.statistics.framesEncoded
                let parts = fast.partCount
                let capture = try #require(await CaptureWindow.measure(recorder, frames: 60), "capture stopped: \(recorder.accounting)")
                return WindowMeasure(capture: capture, encoded: preview.statistics.framesEncoded - encoded, fastParts: fast.partCount - parts)
            }
            let alone = try await window()
            // Ten viewers reading 256 bytes a quarter second: about 1 KB/s each, far below
            // the stream's rate, so their socket buffers fill and their threads block in send.
            let slow = try (0..<10).map { _ in try RawHTTPViewer(port: preview.port, path: path, chunk: 256, pause: 0.25) }
            #expect(await pollUntil { preview.statistics.viewers == 11 })
            let crowded = try await window()
            let report = "the fast viewer alone: \(alone); with ten slow ones: \(crowded)"
            #expect(crowded.capture.deliveredFraction >= alone.capture.deliveredFraction / 3, "capture slowed: \(report)")
            #expect(crowded.encodedFraction >= alone.encodedFraction / 3, "the encoder slowed: \(report)")
            #expect(crowded.fastFraction >= alone.fastFraction / 3, "the fast viewer slowed: \(report)")
            // The slow viewers really were slow: each got only a few frames in that time.
            #expect(slow.allSatisfy { $0.partCount < 10 }, "\(slow.map(\.partCount))")
            // And capture kept its promise throughout: every frame delivered or reported, at its
            // capture time.
            #expect(recorder.accounting.isComplete, "\(recorder.accounting)")
            let times = FrameTimestamps(recorder.samples.items, frameDuration: camera.activeVideoMinFrameDuration)
            #expect(times.isExact, "\(times)")

            for viewer in slow { viewer.disconnect() }
            fast.disconnect()
            #expect(await pollUntil { preview.statistics.viewers == 0 }, "disconnected viewers are noticed")
            #expect(preview.statistics.framesSkippedByViewers > 0)
            preview.stop()
            try await session.stop()
        }

        /// One window of ``tenSlowViewersLowerNeitherTheFrameRateNorAFastViewer()``: capture,
        /// and the encoder's and the fast viewer's share of it.
        struct WindowMeasure: CustomStringConvertible {
            var capture: CaptureWindow
            /// Frames the preview encoded in the window.
            var encoded: Int
            /// Frames the fast viewer received in the window.
            var fastParts: Int

            /// Encoded frames per frame the device produced.
            var encodedFraction: Double { Double(encoded) / Double(max(1, capture.produced)) }
            /// Frames the fast viewer got per frame encoded.
            var fastFraction: Double { Double(fastParts) / Double(max(1, encoded)) }

            var description: String { "\(capture), \(encoded) encoded, \(fastParts) to the fast viewer" }
        }

    }
}

/// The web preview's options, checked without serving anything (no real time, no clients).
@Suite(.excludable)
struct WebPreviewOptionTests {
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
}
