import CaptureKit
import CaptureKitMedia
import Foundation

/// `convert-1080p`: CPU per 1920×1080 frame of the pixel conversions on CaptureKit's hot paths
/// (recording, BGRA data outputs, photos), through the library `PixelConverter` chooses and
/// through libswscale in the same process, and of the luma the scanning and motion outputs take
/// from a YUYV frame (`LumaFrame`) against libswscale's grey conversion, each beside ffmpeg
/// making the same conversion from a raw file.
///
/// ffmpeg's figure is its conversion run minus a run that reads the same file without
/// converting, so both sides count the conversion alone; both rows are listed.
struct ConversionBenchmark: Benchmark {
    let name = "convert-1080p"
    let summary = "pixel conversions on the hot paths at 1080p: libyuv vs libswscale in process vs ffmpeg -pix_fmt on the same frames"

    static let width = 1920, height = 1080
    /// Where each pair is used.
    static let pairs: [(source: PixelFormat, target: PixelFormat, use: String)] = [
        (.yuyv422, .yuv420p, "recording a YUYV camera"),
        (.nv12, .yuv420p, "recording an NV12 camera, preview"),
        (.yuyv422, .bgra, "BGRA data output"),
        (.nv12, .bgra, "BGRA data output"),
        (.yuyv422, .yuv422p, "JPEG photo, turned"),
        (.yuyv422, .gray8, "the luma scanning and motion read"),
    ]

    func run(_ settings: BenchSettings) throws -> BenchmarkReport {
        let conversions = max(settings.frames, 100)
        var rows: [Measurement] = []
        var notes: [String] = []
        let rgb = try PixelConverter.shared.convert(try TestPattern(width: Self.width, height: Self.height, pixelFormat: .nv12).render(frameIndex: 5),
                                                    to: .bgra, width: Self.width, height: Self.height, through: .libswscale)
        for pair in Self.pairs {
            let source = try PixelConverter.shared.convert(rgb, to: pair.source, width: Self.width, height: Self.height, through: .libswscale)
            var cases: [(label: String, convert: () throws -> Void)] = []
            if pair.target == .gray8 {
                let sample = SampleBuffer(media: .video(source), presentationTimeStamp: .zero, duration: .invalid, sequenceNumber: 0)
                cases.append(("luma (libyuv, as scanning and motion take it)", { _ = try LumaFrame.of(sample) }))
            } else {
                let chosen = PixelConverter.library(for: source, to: pair.target, width: Self.width, height: Self.height)
                cases.append(("\(chosen) (chosen)", {
                    _ = try PixelConverter.shared.convert(source, to: pair.target, width: Self.width, height: Self.height)
                }))
            }
            if !cases[0].label.hasPrefix("libswscale") {
                cases.append(("libswscale", {
                    _ = try PixelConverter.shared.convert(source, to: pair.target, width: Self.width, height: Self.height, through: .libswscale)
                }))
            }
            var pairRows: [Measurement] = []
            for (label, convert) in cases {
                let before = ResourceSnapshot.now()
                for _ in 0..<conversions { try convert() }
                let after = ResourceSnapshot.now()
                pairRows.append(Measurement(label: "\(pair.source) → \(pair.target), CaptureKit \(label)",
                                            tool: "CaptureKit", frames: conversions, delivered: nil, dropped: nil, unaccounted: nil,
                                            wallSeconds: after.wallSeconds(since: before), cpuSeconds: after.cpuSeconds(since: before),
                                            peakRSSBytes: nil, peakRSSScope: "process", cpuRatio: nil))
            }
            let peer = try ffmpegRows(for: pair, source: source, settings: settings)
            if let converting = peer.converting, let reading = peer.reading {
                let net = max(0, converting.cpuSeconds - reading.cpuSeconds) / Double(converting.frames)
                for index in pairRows.indices where net > 0 {
                    pairRows[index].cpuRatio = pairRows[index].cpuSeconds / Double(pairRows[index].frames) / net
                }
                pairRows += [converting, reading]
                notes.append(String(format: "%@ → %@ (%@): ffmpeg's conversion alone %.3f ms per frame", "\(pair.source)", "\(pair.target)",
                                    pair.use, net * 1000))
            } else {
                notes.append("ffmpeg is not installed (apt-get install ffmpeg): no peer row for \(pair.source) → \(pair.target)")
            }
            rows += pairRows
        }
        notes.append("ratios: CaptureKit's CPU per frame over ffmpeg's conversion alone (its converting run minus its reading run); "
                     + "one thread on each side; frames are the test pattern (colour bars and gradients)")
        return BenchmarkReport(name: name, summary: summary, rows: rows, notes: notes)
    }

    /// ffmpeg converting a loop of `source` written raw, and ffmpeg reading it without converting.
    private func ffmpegRows(for pair: (source: PixelFormat, target: PixelFormat, use: String), source: PixelBuffer,
                            settings: BenchSettings) throws -> (converting: Measurement?, reading: Measurement?) {
        let path = "\(settings.scratchDirectory)/convert_\(pair.source).raw"
        let frame = Data(source.packedBytes())
        let loops = 100
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: frame) else {
                throw BenchError("cannot write \(path)")
            }
        }
        func command(_ label: String, to format: PixelFormat) -> PeerCommand {
            PeerCommand(label: label, command: "ffmpeg",
                        arguments: ["-v", "error", "-stream_loop", "\(loops - 1)", "-f", "rawvideo", "-pix_fmt", source.pixelFormat.ffmpegName,
                                    "-s", "\(Self.width)x\(Self.height)", "-i", path, "-threads", "1", "-filter_threads", "1",
                                    "-pix_fmt", format.ffmpegName, "-f", "null", "-"],
                        frames: loops, package: "ffmpeg")
        }
        let converting = try command("\(pair.source) → \(pair.target), ffmpeg -pix_fmt \(pair.target.ffmpegName)", to: pair.target)
            .measure(runs: 3, scratchDirectory: settings.scratchDirectory)
        let reading = try command("\(pair.source), ffmpeg reading only", to: pair.source)
            .measure(runs: 3, scratchDirectory: settings.scratchDirectory)
        return (converting, reading)
    }
}

extension PixelFormat {
    /// The name ffmpeg's `-pix_fmt` knows the layout by.
    fileprivate var ffmpegName: String {
        switch self {
        case .gray8: return "gray"
        default: return rawValue
        }
    }
}
