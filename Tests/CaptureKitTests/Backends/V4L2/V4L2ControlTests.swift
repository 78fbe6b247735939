import Synchronization
import Testing
@testable import CaptureKit

/// Controls from a scripted node: the raw list with menus and ranges, set-by-name, and the
/// typed API (image adjustments, exposure, zoom, torch, power line, flips) writing the V4L2
/// controls a webcam has, only inside lockForConfiguration.
@Suite("V4L2Controls", .excludable)
struct V4L2ControlTests {
    // Kernel ABI control IDs (linux/v4l2-controls.h).
    static let brightness: UInt32 = 0x0098_0900
    static let hflip: UInt32 = 0x0098_0914
    static let powerLine: UInt32 = 0x0098_0918
    static let exposureAuto: UInt32 = 0x009A_0901
    static let exposureAbsolute: UInt32 = 0x009A_0902
    static let focusAuto: UInt32 = 0x009A_090C
    static let zoomAbsolute: UInt32 = 0x009A_090D
    static let flashLEDMode: UInt32 = 0x009C_0901
    static let vendorSpecific: UInt32 = 0x0098_1001
    static let whiteBalanceTemperature: UInt32 = 0x0098_091A
    static let readOnly: UInt32 = 0x0004

    private static func control(_ id: UInt32, _ name: String, type: UInt32, _ min: Int64, _ max: Int64, step: UInt64 = 1, _ def: Int64,
                                flags: UInt32 = 0) -> V4L2ControlInfo {
        V4L2ControlInfo(id: id, name: name, type: type, minimum: min, maximum: max, step: step, defaultValue: def, flags: flags)
    }

    /// A webcam's controls: image, exposure, focus, zoom, power line, a flash LED and a vendor's own.
    static let webcamControls = [
        control(brightness, "Brightness", type: 1, 0, 255, 128),
        control(hflip, "Horizontal Flip", type: 2, 0, 1, 0),
        control(powerLine, "Power Line Frequency", type: 3, 0, 2, 1),
        control(exposureAuto, "Auto Exposure", type: 3, 0, 3, 3),
        control(exposureAbsolute, "Exposure Time, Absolute", type: 1, 3, 2047, 250, flags: 0x10),
        control(focusAuto, "Focus, Automatic Continuous", type: 2, 0, 1, 1),
        control(zoomAbsolute, "Zoom, Absolute", type: 1, 100, 500, 100),
        control(flashLEDMode, "LED Mode", type: 3, 0, 2, 0),
        control(vendorSpecific, "Backlight Thing", type: 1, 0, 10, step: 2, 4),
        control(0x0098_0001, "User Controls", type: 6, 0, 0, 0),
    ]

    static let webcamMenus: [UInt32: [UInt32: String]] = [
        powerLine: [0: "Disabled", 1: "50 Hz", 2: "60 Hz"],
        exposureAuto: [1: "Manual Mode", 3: "Aperture Priority Mode"],
        flashLEDMode: [0: "Off", 1: "Flash", 2: "Torch"],
    ]

    private func camera(controls: [V4L2ControlInfo] = webcamControls,
                        menus: [UInt32: [UInt32: String]] = webcamMenus) throws -> (CaptureDevice, ScriptedOpener) {
        var script = V4L2Fixtures.yuyvScript()
        script.controls = controls
        script.menus = menus
        // One shared node so values written are read back.
        let node = ScriptedV4L2Device(script: script)
        let opener = ScriptedOpener { node }
        let backend = try V4L2DeviceBackend(node: V4L2Node(path: node.path, capability: script.capability, bufferType: .capture,
                                                           sysfs: V4L2SysfsInfo(), byIDName: nil), opener: opener)
        return (CaptureDevice(backend: backend), opener)
    }

    private func written(_ opener: ScriptedOpener, _ id: UInt32) -> Int64? { opener.opened.last?.script.controlValues[id] }

    @Test func rawControlsCarryKindsRangesAndMenus() throws {
        let (camera, _) = try camera()
        #expect(camera.controls.map(\.key) == ["brightness", "horizontal_flip", "power_line_frequency", "backlight_thing",
                                               "auto_exposure", "exposure_time_absolute", "focus_automatic_continuous", "zoom_absolute", "led_mode"])
        let power = try #require(camera.control(named: "Power Line Frequency"))
        #expect(power.kind == .menu)
        #expect(power.menuItems.map(\.name) == ["Disabled", "50 Hz", "60 Hz"])
        let exposure = try #require(camera.control(named: "auto_exposure"))
        #expect(exposure.menuItems.map(\.value) == [1, 3], "holes in a menu are skipped")
        #expect(camera.control(named: "exposure_time_absolute")?.isInactive == true)
        #expect(camera.control(named: "user_controls") == nil, "control classes are not controls")
    }

    @Test func changesNeedTheLockAndValidValues() throws {
        let (camera, opener) = try camera()
        #expect(throws: CaptureError.self) { try camera.setControl(named: "brightness", to: "200") }
        #expect(written(opener, Self.brightness) == nil)
        try camera.lockForConfiguration()
        defer { camera.unlockForConfiguration() }
        try camera.setControl(named: "brightness", to: "200")
        #expect(written(opener, Self.brightness) == 200)
        #expect(try camera.controlValue(named: "brightness") == 200)
        try camera.setControl(named: "power_line_frequency", to: "60 hz")
        #expect(written(opener, Self.powerLine) == 2)
        try camera.setControl(named: "horizontal_flip", to: "true")
        #expect(written(opener, Self.hflip) == 1)
        #expect { try camera.setControl(named: "brightness", to: "300") } throws: { ($0 as! CaptureError).code == .invalidArgument }
        #expect { try camera.setControl(named: "backlight_thing", to: "3") } throws: { ($0 as! CaptureError).code == .invalidArgument }
        #expect { try camera.setControl(named: "no_such_thing", to: "1") } throws: { error in
            let error = error as! CaptureError
            return error.code == .notSupported && error.message.contains("brightness")
        }
    }

    @Test func typedSettingsWriteTheWebcamControls() throws {
        let (camera, opener) = try camera()
        #expect(camera.isImageAdjustmentSupported(.brightness))
        #expect(!camera.isImageAdjustmentSupported(.contrast))
        #expect(camera.imageAdjustmentRange(.brightness) == 0...255)
        #expect(camera.isExposureModeSupported(.continuousAutoExposure))
        #expect(camera.isExposureModeSupported(.custom))
        #expect(!camera.isExposureModeSupported(.autoExpose))
        #expect(camera.isFocusModeSupported(.continuousAutoFocus))
        #expect(camera.hasTorch)
        #expect(camera.maxAvailableVideoZoomFactor == 5)
        #expect(camera.isPowerLineFrequencySupported(.hz50))
        #expect(!camera.isPowerLineFrequencySupported(.auto))
        #expect(camera.isHorizontalFlipSupported)
        #expect(!camera.isVerticalFlipSupported)
        #expect(camera.minExposureDuration == MediaTime(value: 3, timescale: 10_000))

        #expect(throws: CaptureError.self) { try camera.setTorchMode(.on) }
        try camera.lockForConfiguration()
        defer { camera.unlockForConfiguration() }
        try camera.setImageAdjustment(.brightness, to: 10)
        #expect(try camera.imageAdjustment(.brightness) == 10)
        try camera.setExposureMode(.continuousAutoExposure)
        #expect(written(opener, Self.exposureAuto) == 3, "aperture priority is this camera's automatic mode")
        try camera.setExposureModeCustom(duration: MediaTime(value: 1, timescale: 100))
        #expect(written(opener, Self.exposureAuto) == 1)
        #expect(written(opener, Self.exposureAbsolute) == 100, "1/100 s is 100 units of 100 µs")
        try camera.setVideoZoomFactor(2)
        #expect(written(opener, Self.zoomAbsolute) == 200)
        #expect(try camera.videoZoomFactor() == 2)
        try camera.setTorchMode(.on)
        #expect(written(opener, Self.flashLEDMode) == 2)
        try camera.setFocusMode(.locked)
        #expect(written(opener, Self.focusAuto) == 0)
        try camera.setPowerLineFrequency(.hz50)
        #expect(written(opener, Self.powerLine) == 1)
        #expect { try camera.setPowerLineFrequency(.auto) } throws: { ($0 as! CaptureError).code == .notSupported }
        #expect { try camera.setImageAdjustment(.contrast, to: 1) } throws: { ($0 as! CaptureError).code == .notSupported }
        #expect { try camera.setVerticalFlip(true) } throws: { ($0 as! CaptureError).code == .notSupported }
        #expect { try camera.setVideoZoomFactor(6) } throws: { ($0 as! CaptureError).code == .invalidArgument }
    }

    /// The webcam's controls with the one of `id` replaced by `replacement` (or removed).
    private static func webcam(replacing id: UInt32, with replacement: V4L2ControlInfo?) -> [V4L2ControlInfo] {
        webcamControls.compactMap { $0.id == id ? replacement : $0 }
    }

    @Test func everySpellingOfHasATorchAnswersFromTheControlList() throws {
        let led = Self.control(Self.flashLEDMode, "LED Mode", type: 3, 0, 2, 0)
        let cases: [(String, [V4L2ControlInfo], [UInt32: [UInt32: String]], Bool)] = [
            ("a flash LED with a torch mode", Self.webcamControls, Self.webcamMenus, true),
            ("no flash LED", Self.webcam(replacing: Self.flashLEDMode, with: nil), Self.webcamMenus, false),
            ("a read-only flash LED", Self.webcam(replacing: Self.flashLEDMode, with: Self.control(Self.flashLEDMode, "LED Mode", type: 3, 0, 2, 0, flags: Self.readOnly)),
             Self.webcamMenus, false),
            ("a flash LED without a torch mode", Self.webcam(replacing: Self.flashLEDMode, with: led),
             Self.webcamMenus.merging([Self.flashLEDMode: [0: "Off", 1: "Flash"]]) { $1 }, false),
        ]
        for (what, controls, menus, hasTorch) in cases {
            let (camera, opener) = try camera(controls: controls, menus: menus)
            #expect(camera.hasTorch == hasTorch, "\(what)")
            #expect(camera.isTorchModeSupported(.on) == hasTorch, "\(what)")
            #expect(camera.isTorchModeSupported(.off), "\(what)")
            #expect(!camera.isTorchModeSupported(.auto), "\(what)")
            try camera.lockForConfiguration()
            defer { camera.unlockForConfiguration() }
            if hasTorch {
                try camera.setTorchMode(.on)
                #expect(written(opener, Self.flashLEDMode) == 2, "\(what)")
            } else {
                #expect("\(what)") { try camera.setTorchMode(.on) } throws: { ($0 as! CaptureError).code == .notSupported }
                #expect(written(opener, Self.flashLEDMode) == nil, "\(what)")
            }
            try camera.setTorchMode(.off)
        }
    }

    @Test func readOnlyControlsBackNoTypedSetting() throws {
        let controls = Self.webcamControls.map { info in
            var info = info
            if [Self.brightness, Self.zoomAbsolute, Self.exposureAuto].contains(info.id) { info.flags |= Self.readOnly }
            return info
        }
        let (camera, _) = try camera(controls: controls)
        #expect(camera.control(named: "brightness") != nil, "the raw list still has it")
        #expect(!camera.isImageAdjustmentSupported(.brightness))
        #expect(camera.imageAdjustmentRange(.brightness) == nil)
        #expect(camera.maxAvailableVideoZoomFactor == 1)
        #expect(try camera.videoZoomFactor() == 1)
        #expect(CaptureDevice.ExposureMode.allCases.allSatisfy { !camera.isExposureModeSupported($0) })
        try camera.lockForConfiguration()
        defer { camera.unlockForConfiguration() }
        #expect { try camera.setImageAdjustment(.brightness, to: 1) } throws: { ($0 as! CaptureError).code == .notSupported }
        #expect { try camera.setVideoZoomFactor(2) } throws: { ($0 as! CaptureError).code == .invalidArgument }
        #expect { try camera.setExposureMode(.continuousAutoExposure) } throws: { ($0 as! CaptureError).code == .notSupported }
    }

    @Test func aTemperatureAloneIsLockedWhiteBalance() throws {
        let temperature = Self.control(Self.whiteBalanceTemperature, "White Balance Temperature", type: 1, 2800, 6500, 4600)
        let (camera, opener) = try camera(controls: [temperature])
        #expect(camera.isWhiteBalanceModeSupported(.locked))
        #expect(!camera.isWhiteBalanceModeSupported(.continuousAutoWhiteBalance))
        #expect(camera.whiteBalanceTemperatureRange == 2800...6500)
        try camera.lockForConfiguration()
        defer { camera.unlockForConfiguration() }
        try camera.setWhiteBalanceMode(.locked)
        #expect { try camera.setWhiteBalanceMode(.continuousAutoWhiteBalance) } throws: { ($0 as! CaptureError).code == .notSupported }
        try camera.setWhiteBalanceTemperature(5000)
        #expect(written(opener, Self.whiteBalanceTemperature) == 5000)
    }

    /// AVFoundation raises an exception for smooth autofocus on a device without it; here the
    /// setting stays false and a warning names the device, even on a camera that has autofocus.
    @Test func smoothAutoFocusStaysOffAndSaysSo() throws {
        let (camera, _) = try camera()
        #expect(camera.isFocusModeSupported(.continuousAutoFocus))
        #expect(!camera.isSmoothAutoFocusSupported)
        let warnings = Mutex<[String]>([])
        CaptureLog.setHandler { level, _, message in
            if level == .warning, message.contains("smooth autofocus") { warnings.withLock { $0.append(message) } }
        }
        defer { CaptureLog.setHandler(nil) }
        camera.isSmoothAutoFocusEnabled = false
        #expect(warnings.withLock { $0.isEmpty })
        camera.isSmoothAutoFocusEnabled = true
        #expect(!camera.isSmoothAutoFocusEnabled)
        #expect(warnings.withLock { $0 } == ["\(camera.localizedName) does not support smooth autofocus; isSmoothAutoFocusEnabled stays false"])
    }

    @Test func devicesWithoutControlsSaySo() throws {
        let virtual = try #require(CaptureDevice.allDevices.first { $0.isVirtual && $0.hasMediaType(.video) })
        #expect(virtual.controls.isEmpty)
        #expect(!virtual.isImageAdjustmentSupported(.brightness))
        #expect(!virtual.hasTorch)
        #expect(!virtual.isTorchModeSupported(.on))
        #expect(!CaptureDevice.FocusMode.allCases.contains { virtual.isFocusModeSupported($0) })
        #expect(virtual.maxAvailableVideoZoomFactor == 1)
        #expect { try virtual.controlValue(named: "brightness") } throws: { ($0 as! CaptureError).code == .notSupported }
    }
}
