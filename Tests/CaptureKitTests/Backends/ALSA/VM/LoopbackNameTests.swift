import Foundation
import Testing
@testable import CaptureKit

extension RealTimeCaptureTests.ALSAIntegrationTests {
    /// snd-aloop's card named as `arecord -D` users name it: by number, by ID, with the
    /// plugin; the names discovery lists come back as the listed devices.
    @Suite struct LoopbackNameTests {
        @Test func cardNumbersAndIDsResolveToTheListedMicrophone() throws {
            // /proc/asound/Loopback links to the card's numbered folder (card1, …).
            let folder = URL(fileURLWithPath: "/proc/asound/Loopback").resolvingSymlinksInPath().lastPathComponent
            let number = try #require(Int(folder.dropFirst("card".count)), "\(folder)")
            let listed = try #require(CaptureDevice.device(uniqueID: "alsa:hw:CARD=Loopback,DEV=1"))
            for name in ["hw:\(number),1", "hw:Loopback,1", "hw:CARD=Loopback,DEV=1", "alsa:hw:CARD=Loopback,DEV=1"] {
                #expect(try CaptureDevice.device(resolving: name) === listed, "\(name)")
                #expect(try CaptureDevice.device(resolving: name, mediaType: .audio) === listed, "\(name)")
            }
            let plug = try CaptureDevice.device(resolving: "plughw:\(number),1", mediaType: .audio)
            #expect(plug.alsaPCMName == "plughw:CARD=Loopback,DEV=1")
            let formats = try CaptureTool.run(["formats", "hw:\(number),0"])
            #expect(formats.status == 0 && formats.output.contains("[alsa:hw:CARD=Loopback,DEV=0]"), "\(formats)")
        }
    }
}
