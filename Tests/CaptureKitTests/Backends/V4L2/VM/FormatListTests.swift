import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.V4L2IntegrationTests {
    /// Our format list against `v4l2-ctl --list-formats-ext` on the same node.
    @Suite struct FormatListTests {
        /// The FourCCs CaptureKit delivers; v4l2-ctl's list is compared restricted to them
        /// (vivid offers 83 raw formats, most of which no webcam sends).
        static let supported: Set<String> = ["YUYV", "UYVY", "NV12", "NV21", "YU12", "RGB3", "BGR3", "GREY", "MJPG", "JPEG",
                                             "BA81", "GBRG", "GRBG", "RGGB", "BG10", "GB10", "BA10", "RG10",
                                             "BG12", "GB12", "BA12", "RG12", "BYR2", "GB16", "GR16", "RG16"]

        static func entries(_ device: CaptureDevice) -> [V4L2Ctl.FormatEntry] {
            device.formats.map { format in
                V4L2Ctl.FormatEntry(fourCC: format.fourCC ?? "?", width: format.width, height: format.height,
                                    frameRates: Set(format.videoSupportedFrameRateRanges.flatMap { range in
                                        [Int((range.minFrameRate * 1000).rounded()), Int((range.maxFrameRate * 1000).rounded())]
                                    }))
            }
        }

        @Test(arguments: ["vivid 0", "vivid 1", "loopback"])
        func formatsEqualV4L2Ctl(_ which: String) throws {
            let node = which == "loopback" ? VMEnvironment.loopbackNode : VMEnvironment.vivid(which == "vivid 0" ? 0 : 1)
            let device = try VMEnvironment.device(at: node)
            let reference = try V4L2Ctl.formats(node).filter { Self.supported.contains($0.fourCC) }
            try #require(!reference.isEmpty, "v4l2-ctl lists no supported format on \(node)")
            let ours = Self.entries(device)
            #expect(Set(ours) == Set(reference),
                    "only ours: \(Set(ours).subtracting(reference).sorted { $0.description < $1.description }); only v4l2-ctl's: \(Set(reference).subtracting(ours).sorted { $0.description < $1.description })")
            #expect(ours.count == reference.count, "no duplicates")
            if which == "loopback" {
                #expect(device.formats.allSatisfy { $0.fourCC == "MJPG" }, "the producer declared MJPEG")
            } else {
                // vivid's webcam input: the six sizes, each in every supported raw FourCC.
                #expect(Set(reference.map(\.fourCC)).count >= 8, "v4l2-ctl: \(Set(reference.map(\.fourCC)))")
                #expect(Set(reference.map { "\($0.width)x\($0.height)" }).count == 6)
            }
        }
    }
}
