import Foundation
import Synchronization
import Testing
@testable import CaptureKit

// What the movie suites share: a delegate that records the callback order, ffprobe as the
// oracle for every file, and the path of the `capture` executable for child-process tests.

/// Records a recording delegate's calls in order and lets a test wait for didFinish.
final class RecordingRecorder: CaptureFileOutputRecordingDelegate {
    enum Call: Equatable, Sendable {
        case didStart, didPause, didResume, willFinish
        case didFinish(CaptureError.Code?, usable: Bool)
    }

    let calls = Recorder<Call>()
    /// The capture time of each recording's first frame (`startPTS`).
    let startTimes = Recorder<MediaTime>()

    func fileOutput(_ output: CaptureMovieFileOutput, didStartRecordingTo fileURL: URL, startPTS: MediaTime, from connections: [CaptureConnection]) {
        calls.append(.didStart)
        startTimes.append(startPTS)
    }
    func fileOutput(_ output: CaptureMovieFileOutput, didPauseRecordingTo fileURL: URL, from connections: [CaptureConnection]) {
        calls.append(.didPause)
    }
    func fileOutput(_ output: CaptureMovieFileOutput, didResumeRecordingTo fileURL: URL, from connections: [CaptureConnection]) {
        calls.append(.didResume)
    }
    func fileOutput(_ output: CaptureMovieFileOutput, willFinishRecordingTo fileURL: URL, from connections: [CaptureConnection], error: (any Error)?) {
        calls.append(.willFinish)
    }
    func fileOutput(_ output: CaptureMovieFileOutput, didFinishRecordingTo fileURL: URL, from connections: [CaptureConnection], error: (any Error)?) {
        let error = error as? CaptureError
        calls.append(.didFinish(error?.code, usable: error?.recordingSuccessfullyFinished ?? true))
    }

    /// Waits for didFinish and returns it.
    func finished(timeout: Duration = .seconds(30)) async -> Call? {
        _ = await calls.wait(timeout: timeout) { $0.contains { if case .didFinish = $0 { return true } else { return false } } }
        return calls.items.last { if case .didFinish = $0 { return true } else { return false } }
    }
}

/// What ffprobe says about a movie.
struct ProbedMovie {
    struct Stream {
        var codec: String
        var type: String
        var startTime: Double
        var duration: Double
        var frames: Int?
        var rotation: Double?
        var sampleRate: Int?
    }

    var formatName: String
    var duration: Double
    var tags: [String: String]
    var streams: [Stream]

    var video: Stream? { streams.first { $0.type == "video" } }
    var audio: Stream? { streams.first { $0.type == "audio" } }

    /// Probes `path` with ffprobe, counting video frames by reading packets.
    static func probe(_ path: String) throws -> ProbedMovie {
        let data = try FileFixtures.run("ffprobe", ["-v", "error", "-count_packets", "-show_format", "-show_streams", "-of", "json", path])
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let format = try #require(json["format"] as? [String: Any])
        let streams = (json["streams"] as? [[String: Any]] ?? []).map { stream -> Stream in
            let sideData = stream["side_data_list"] as? [[String: Any]] ?? []
            let rotation = sideData.compactMap { ($0["rotation"] as? NSNumber)?.doubleValue }.first
            // Matroska keeps a stream's duration as a tag, "00:00:01.000000000".
            let tags = stream["tags"] as? [String: String] ?? [:]
            let tagged = (tags["DURATION"] ?? tags["duration"]).map { text -> Double in
                text.split(separator: ":").reduce(0) { $0 * 60 + (Double($1) ?? .nan) }
            }
            return Stream(codec: stream["codec_name"] as? String ?? "",
                          type: stream["codec_type"] as? String ?? "",
                          startTime: Double(stream["start_time"] as? String ?? "") ?? 0,
                          duration: Double(stream["duration"] as? String ?? "") ?? tagged ?? .nan,
                          frames: Int(stream["nb_read_packets"] as? String ?? ""),
                          rotation: rotation,
                          sampleRate: Int(stream["sample_rate"] as? String ?? ""))
        }
        return ProbedMovie(formatName: format["format_name"] as? String ?? "",
                           duration: Double(format["duration"] as? String ?? "") ?? .nan,
                           tags: format["tags"] as? [String: String] ?? [:],
                           streams: streams)
    }

    /// The video packets' presentation times in seconds, sorted.
    static func videoTimestamps(_ path: String) throws -> [Double] {
        let data = try FileFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time",
                                                    "-of", "csv=p=0", path])
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { Double($0) }.sorted()
    }

    /// Each video packet's MD5 (`ffprobe -show_data_hash`) and key flag, in decode order.
    static func videoPacketHashes(_ url: URL) throws -> [(hash: String, key: Bool)] {
        let data = try FileFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags,data_hash",
                                                    "-show_data_hash", "md5", "-of", "csv=p=0", url.path])
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",").map(String.init)
            guard let hash = fields.first(where: { $0.contains(":") }), let flags = fields.first(where: { !$0.contains(":") }) else { return nil }
            return (hash, flags.hasPrefix("K"))
        }
    }
}

enum MovieFiles {
    /// A fresh path in the fixture directory (no file there yet).
    static func path(_ name: String, _ ext: String) -> URL {
        FileFixtures.directory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(6)).\(ext)")
    }

    /// The `capture` executable built beside the test bundle.
    static var captureExecutable: URL? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("capture")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }
}

/// A session with a 320x240 test camera, a microphone (unless `audio` is false) and `outputs`.
func makeRecordingSession(_ label: String, audio: Bool = true, outputs: [CaptureOutput],
                          configure: (inout VirtualCameraConfiguration) -> Void = { _ in }) throws -> (CaptureSession, CaptureDevice, CaptureDevice?) {
    let camera = try makeTestCamera(label, configure: configure)
    let microphone = audio ? try CaptureDevice.makeVirtualMicrophone(VirtualMicrophoneConfiguration(name: uniqueDeviceName("\(label) Mic"))) : nil
    let session = CaptureSession()
    session.beginConfiguration()
    try session.addInput(CaptureDeviceInput(device: camera))
    if let microphone { try session.addInput(CaptureDeviceInput(device: microphone)) }
    for output in outputs { try session.addOutput(output) }
    try session.commitConfiguration()
    return (session, camera, microphone)
}
