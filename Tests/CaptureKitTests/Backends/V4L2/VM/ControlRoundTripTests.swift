import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.V4L2IntegrationTests {
    /// vivid's controls set through CaptureKit and read back by v4l2-ctl, and the other way
    /// round.
    @Suite struct ControlRoundTripTests {
        private var node: String { VMEnvironment.vivid(0) }

        @Test func controlListMatchesV4L2Ctl() throws {
            let device = try VMEnvironment.device(at: node)
            let listed = try V4L2Ctl.run(["-d", node, "--list-ctrls"])
            // v4l2-ctl prints `   brightness 0x00980900 (int) : min=0 max=255 …`; compound
            // controls (arrays, areas) are outside what `controls` describes.
            let scalar: Set<Substring> = ["(int)", "(bool)", "(menu)", "(intmenu)", "(button)", "(int64)", "(bitmask)", "(str)"]
            let keys = Set(listed.split(separator: "\n").compactMap { line -> String? in
                let words = line.split(separator: " ")
                return words.count > 2 && words[1].hasPrefix("0x") && scalar.contains(words[2]) ? String(words[0]) : nil
            })
            try #require(keys.count > 30, "v4l2-ctl lists \(keys.count) controls")
            let ours = Set(device.controls.map(\.key))
            #expect(keys.subtracting(ours).isEmpty, "controls CaptureKit does not list: \(keys.subtracting(ours).sorted())")
            let brightness = try #require(device.controls.first { $0.key == "brightness" })
            #expect(brightness.minimum == 0 && brightness.maximum == 255 && brightness.defaultValue == 128)
            let pattern = try #require(device.controls.first { $0.key == "test_pattern" })
            #expect(pattern.kind == .menu)
            #expect(pattern.menuItems.contains { $0.name == "75% Colorbar" })
        }

        @Test func typedImageAdjustmentsReachTheDriver() throws {
            let device = try VMEnvironment.device(at: node)
            defer { try? V4L2Ctl.set(node, ["brightness": "128", "contrast": "128", "saturation": "128", "hue": "0"]) }
            let values: [(CaptureDevice.ImageAdjustment, String, Int64)] = [
                (.brightness, "brightness", 200), (.contrast, "contrast", 50), (.saturation, "saturation", 77), (.hue, "hue", -20),
            ]
            try device.lockForConfiguration()
            defer { device.unlockForConfiguration() }
            for (adjustment, key, value) in values {
                #expect(device.isImageAdjustmentSupported(adjustment), "\(key)")
                try device.setImageAdjustment(adjustment, to: value)
                #expect(try V4L2Ctl.value(node, key) == value, "v4l2-ctl reads \(key)")
                #expect(try device.imageAdjustment(adjustment) == value)
            }
        }

        @Test func rawControlsRoundTripBothWays() throws {
            let device = try VMEnvironment.device(at: node)
            defer { try? V4L2Ctl.set(node, ["brightness": "128", "horizontal_flip": "0", "test_pattern": "0"]) }
            // Outside lockForConfiguration nothing may change.
            #expect(throws: CaptureError.self) { try device.setControl(named: "brightness", to: "10") }
            try device.lockForConfiguration()
            defer { device.unlockForConfiguration() }

            try device.setControl(named: "brightness", to: "10")
            #expect(try V4L2Ctl.value(node, "brightness") == 10)
            try V4L2Ctl.set(node, ["brightness": "99"])
            #expect(try device.controlValue(named: "brightness") == 99, "read from the driver, not a cache")

            try device.setControl(named: "horizontal_flip", to: "true")
            #expect(try V4L2Ctl.value(node, "horizontal_flip") == 1)

            // A menu control by item name: vivid's "100% Colorbar" is index 1.
            try device.setControl(named: "test_pattern", to: "100% Colorbar")
            #expect(try V4L2Ctl.value(node, "test_pattern") == 1)

            do {
                try device.setControl(named: "brightness", to: "1000")
                Issue.record("out of range accepted")
            } catch {
                #expect(error.code == .invalidArgument, "\(error)")
            }
            do {
                try device.setControl(named: "no_such_control", to: "1")
                Issue.record("unknown control accepted")
            } catch {
                #expect(error.code == .notSupported, "\(error)")
            }
            #expect(try V4L2Ctl.value(node, "brightness") == 99, "a refused value changes nothing")
        }
    }
}
