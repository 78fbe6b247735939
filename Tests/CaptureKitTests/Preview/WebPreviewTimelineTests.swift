import Foundation
import Testing
@testable import CaptureKit
@testable import CaptureKitPreview

extension RealTimeCaptureTests {
    /// The web preview's timeline against real clients: a virtual camera plays a scripted scene
    /// (an object appears in frame 45 of each 150-frame loop), a motion output triggers a
    /// pre-roll clip when motion begins, and headless Chromium (driven by Selenium) must see the
    /// clip, the motion and an application event with their pictures, then play the clip in the
    /// page; curl checks the byte ranges a player asks for.
    @Suite(.serialized)
    struct WebPreviewTimelineTests {
        static let browserScript = WebPreviewTests.browserScript.replacingOccurrences(of: "web_preview_check.py", with: "web_timeline_check.py")

        /// Triggers the ring when motion begins, on the camera's thread.
        private final class MotionTrigger: CaptureMotionOutputDelegate {
            let ring: CapturePreRollOutput
            init(_ ring: CapturePreRollOutput) { self.ring = ring }
            func motionOutput(_ output: CaptureMotionOutput, didOutput event: MotionEvent, from connection: CaptureConnection) {
                if event.phase == .began { try? ring.trigger(reason: "motion", at: event.presentationTimeStamp) }
            }
        }

        /// A running session with the timeline's three sources, until the first clip finished.
        private struct Rig {
            let session: CaptureSession
            let preview: CaptureWebPreview
            let clip: PreRollClip
            let camera: CaptureDevice
            let delegate: MotionTrigger
        }

        private func startRig(_ label: String) async throws -> Rig {
            var scene = MotionScene(width: 160, height: 120, noise: 2)
            scene.objects = [MotionScene.Object(x: 100, y: 60, width: 24, height: 20, level: 235, frames: 45..<150)]
            let pictures = try (0..<150).map { try scene.pixelBuffer($0) }
            let camera = try makeTestCamera(label) {
                $0.sizes = [.init(width: 160, height: 120)]
                $0.pixelFormats = [.nv12]
                $0.frameRates = [30]
                $0.content = .frames(pictures)
            }
            let folder = FileFixtures.directory.appendingPathComponent("timeline-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let ring = CapturePreRollOutput()
            try ring.setClipFolder(folder)
            try ring.setDurations(preRoll: MediaTime(value: 1, timescale: 1), postRoll: MediaTime(value: 1, timescale: 1),
                                  longestClip: MediaTime(value: 10, timescale: 1))
            let motion = CaptureMotionOutput()
            let delegate = MotionTrigger(ring)
            motion.setMotionDelegate(delegate, queue: DispatchQueue(label: "tests.timeline.motion"))
            let session = try makeSession(camera: camera, outputs: [motion, ring])
            let preview = try CaptureWebPreview(session: session)
            preview.showClips(of: ring)
            preview.showMotion(of: motion)
            let events = Recorder<PreRollEvent>()
            let stream = ring.events
            let listener = Task { for await event in stream { events.append(event) } }
            defer { listener.cancel() }
            try await session.start()
            preview.addTimelineEvent("doorbell pressed")
            _ = await events.wait(timeout: .seconds(60)) { $0.contains { if case .finished = $0 { true } else { false } } }
            guard let clip = events.items.compactMap({ if case .finished(let clip) = $0 { clip } else { nil } }).first else {
                preview.stop()
                try await session.stop()
                CaptureDevice.removeVirtualDevice(camera)
                throw CaptureError(.invalidState, "no clip finished within 60 s: \(events.items)")
            }
            return Rig(session: session, preview: preview, clip: clip, camera: camera, delegate: delegate)
        }

        private func end(_ rig: Rig) async throws {
            rig.preview.stop()
            try await rig.session.stop()
            CaptureDevice.removeVirtualDevice(rig.camera)
        }

        @Test(.tags(.browser, .childProcess), .enabled(if: WebPreviewTests.browserRunnable))
        func aBrowserSeesTheClipTheMotionAndTheEventAndPlaysTheClip() async throws {
            let rig = try await startRig("timeline-browser")
            let scratch = try PhotoScratch()
            let run = Result { try PhotoTools.run("/usr/bin/python3", [Self.browserScript, rig.preview.url.absoluteString, "doorbell pressed"], in: scratch) }
            try await end(rig)
            let output = try run.get()
            let seen = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any], "\(String(decoding: output, as: UTF8.self))")
            let entries = seen["entries"] as? [[String: Any]] ?? []
            // Newest first, each kind present with a decoded picture.
            let ids = entries.compactMap { ($0["id"] as? String).flatMap(Int.init) }
            #expect(ids == ids.sorted(by: >), "\(entries)")
            let clip = try #require(entries.first { $0["kind"] as? String == "clip" && $0["state"] as? String == "finished" }, "\(entries)")
            #expect((clip["text"] as? String)?.contains("motion") == true, "\(clip)")
            #expect((clip["picture"] as? Int ?? 0) > 0, "\(clip)")
            let motion = try #require(entries.first { $0["kind"] as? String == "motion" }, "\(entries)")
            #expect((motion["text"] as? String)?.contains("% of the picture") == true, "\(motion)")
            let event = try #require(entries.first { $0["kind"] as? String == "event" }, "\(entries)")
            #expect((event["picture"] as? Int) == 160, "the event's picture is the preview's frame: \(event)")
            // The page's player played the clip the button named, whole: its length is the
            // clip's, its picture the camera's.
            #expect(seen["error"] is NSNull, "the player failed: \(seen)")
            #expect(seen["stalled"] == nil, "the player did not play: \(seen)")
            #expect(seen["playerID"] as? String == seen["playedID"] as? String)
            #expect(seen["videoWidth"] as? Int == 160 && seen["videoHeight"] as? Int == 120, "\(seen)")
            let duration = try #require(seen["duration"] as? Double, "\(seen)")
            #expect(abs(duration - rig.clip.duration.seconds) < 0.1, "the page played \(duration) s of a \(rig.clip.duration.seconds) s clip")
            #expect((seen["currentTime"] as? Double ?? 0) > 0.5, "\(seen)")
            #expect(seen["message"] as? String == "", "the page showed an error: \(seen)")
        }

        /// A player's range requests get exactly the bytes of the file; ranges outside it, and
        /// entries or files the timeline does not hold, are refused.
        @Test(.tags(.childProcess), .enabled(if: PreviewPrerequisites.runnable(["curl"])))
        func clipsAreServedByByteRangeAndNothingElseIs() async throws {
            let rig = try await startRig("timeline-ranges")
            let checked = Result { try checkRanges(rig) }
            try await end(rig)
            try checked.get()
        }

        private func checkRanges(_ rig: Rig) throws {
            let scratch = try PhotoScratch()
            let token = rig.preview.accessToken
            let base = "http://127.0.0.1:\(rig.preview.port)"
            let status = try PhotoTools.run("curl", ["-s", "-f", "\(base)/status.json?token=\(token)"], in: scratch)
            let document = try #require(try JSONSerialization.jsonObject(with: status) as? [String: Any])
            let timeline = try #require(document["timeline"] as? [[String: Any]])
            let entry = try #require(timeline.first { $0["kind"] as? String == "clip" && $0["state"] as? String == "finished" }, "\(timeline)")
            let path = try #require(entry["clip"] as? String)
            let file = try Data(contentsOf: rig.clip.url)
            #expect(file.count > 1000)

            func fetch(_ range: String?, _ path: String, token: String = token) throws -> (code: String, headers: String, body: Data) {
                let body = "\(scratch.path)/\(UUID().uuidString)", headers = body + ".headers"
                var arguments = ["-s", "-o", body, "-D", headers, "-w", "%{http_code}"]
                if let range { arguments += ["-H", "Range: \(range)"] }
                let code = try PhotoTools.run("curl", arguments + ["\(base)/\(path)?token=\(token)"], in: scratch)
                return (String(decoding: code, as: UTF8.self), (try? String(contentsOfFile: headers, encoding: .utf8)) ?? "",
                        (try? Data(contentsOf: URL(fileURLWithPath: body))) ?? Data())
            }
            let whole = try fetch(nil, path)
            #expect(whole.code == "200" && whole.body == file, "\(whole.code), \(whole.body.count) of \(file.count) bytes")
            #expect(whole.headers.lowercased().contains("accept-ranges: bytes"), "\(whole.headers)")
            let head = try fetch("bytes=0-99", path)
            #expect(head.code == "206" && head.body == file.prefix(100), "\(head.code) \(head.body.count)")
            #expect(head.headers.contains("Content-Range: bytes 0-99/\(file.count)"), "\(head.headers)")
            let tail = try fetch("bytes=-64", path)
            #expect(tail.code == "206" && tail.body == file.suffix(64), "\(tail.code) \(tail.body.count)")
            let middle = try fetch("bytes=500-", path)
            #expect(middle.code == "206" && middle.body == file.dropFirst(500), "\(middle.code) \(middle.body.count)")
            let outside = try fetch("bytes=\(file.count)-", path)
            #expect(outside.code == "416" && outside.headers.contains("Content-Range: bytes */\(file.count)"), "\(outside.code) \(outside.headers)")
            #expect(try fetch(nil, path, token: String(token.dropLast()) + "x").code == "403")
            #expect(try fetch(nil, "timeline/99999/clip").code == "404")
            #expect(try fetch(nil, path.replacingOccurrences(of: "/clip", with: "/../../etc/passwd")).code == "404")
            let thumbnail = try #require(entry["thumbnail"] as? String)
            let picture = try fetch(nil, thumbnail)
            #expect(picture.code == "200" && picture.body.starts(with: [0xFF, 0xD8]), "\(picture.code)")
        }
    }
}

/// The `Range` header as the web preview reads it (RFC 9110 §14.1.2).
@Suite struct HTTPByteRangeTests {
    @Test(arguments: [
        (nil, HTTPByteRange.Selection.whole),
        ("bytes=0-99", .part(HTTPByteRange(start: 0, count: 100))),
        ("bytes=900-", .part(HTTPByteRange(start: 900, count: 100))),
        ("bytes=900-5000", .part(HTTPByteRange(start: 900, count: 100))),
        ("bytes=-10", .part(HTTPByteRange(start: 990, count: 10))),
        ("bytes=-5000", .part(HTTPByteRange(start: 0, count: 1000))),
        ("bytes=1000-", .unsatisfiable),
        ("bytes=50-40", .unsatisfiable),
        ("bytes=-0", .unsatisfiable),
        ("bytes=x-y", .unsatisfiable),
        ("bytes=0-1,5-6", .whole),
        ("items=0-1", .whole),
    ] as [(String?, HTTPByteRange.Selection)])
    func aRangeSelectsBytesOfAThousandByteFile(_ header: String?, _ expected: HTTPByteRange.Selection) {
        #expect(HTTPByteRange.select(header, size: 1000) == expected)
    }

    @Test func anEmptyFileHasNoRangeButItsWhole() {
        #expect(HTTPByteRange.select("bytes=0-", size: 0) == .unsatisfiable)
        #expect(HTTPByteRange.select(nil, size: 0) == .whole)
        #expect(HTTPByteRange(start: 0, count: 100).contentRange(of: 1000) == "bytes 0-99/1000")
    }
}
