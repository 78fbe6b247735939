internal import CALSA
import Synchronization

/// Discovery of ALSA sound cards' capture devices (`hw:CARD=…,DEV=…`), listed only when no
/// sound server is reachable: with a server running, its sources are the microphones and the
/// cards belong to it. Card enumeration opens only control devices and never waits, so
/// discovery is quick and harmless on machines without sound cards.
final class ALSADeviceProvider: DeviceProvider {
    static let shared = ALSADeviceProvider()

    /// Backends made so far, by PCM name: a device keeps its identity (and the registry its
    /// `CaptureDevice`) across discoveries, and a card that is streaming is not probed again
    /// (it would be busy).
    private let made = Mutex<[String: ALSABackend]>([:])

    func backends() -> [any DeviceBackend] {
        let cards = Self.captureDevices()
        guard !cards.isEmpty, !SoundServerAddress.current().isAnswering else { return [] }
        return cards.compactMap { device in
            if let known = made.withLock({ $0[device.pcmName] }) { return known }
            // A card another program holds cannot be probed now; it is listed once it can be.
            guard let backend = try? ALSABackend(pcmName: device.pcmName, localizedName: device.name,
                                                 modelID: device.cardID, manufacturer: "ALSA") else { return nil }
            return made.withLock { made in
                if let raced = made[device.pcmName] { return raced }
                made[device.pcmName] = backend
                return backend
            }
        }
    }

    /// A card's capture device as the control interface describes it.
    struct CardDevice {
        var pcmName: String
        var name: String
        var cardID: String
    }

    /// Every capture PCM device of every card. Wraps `snd_card_next`, `snd_ctl_card_info`,
    /// `snd_ctl_pcm_next_device` and `snd_ctl_pcm_info`.
    static func captureDevices() -> [CardDevice] {
        ALSA.prepare()
        var found: [CardDevice] = []
        var card: Int32 = -1
        while snd_card_next(&card) >= 0, card >= 0 {
            var control: OpaquePointer?
            guard snd_ctl_open(&control, "hw:\(card)", Int32(SND_CTL_NONBLOCK)) >= 0, let control else { continue }
            defer { snd_ctl_close(control) }
            var cardInfo: OpaquePointer?
            var pcmInfo: OpaquePointer?
            guard snd_ctl_card_info_malloc(&cardInfo) >= 0, snd_pcm_info_malloc(&pcmInfo) >= 0 else {
                snd_ctl_card_info_free(cardInfo)
                continue
            }
            defer {
                snd_ctl_card_info_free(cardInfo)
                snd_pcm_info_free(pcmInfo)
            }
            guard snd_ctl_card_info(control, cardInfo) >= 0 else { continue }
            let cardID = String(cString: snd_ctl_card_info_get_id(cardInfo))
            let cardName = String(cString: snd_ctl_card_info_get_name(cardInfo))
            var device: Int32 = -1
            while snd_ctl_pcm_next_device(control, &device) >= 0, device >= 0 {
                snd_pcm_info_set_device(pcmInfo, UInt32(device))
                snd_pcm_info_set_subdevice(pcmInfo, 0)
                snd_pcm_info_set_stream(pcmInfo, SND_PCM_STREAM_CAPTURE)
                guard snd_ctl_pcm_info(control, pcmInfo) >= 0 else { continue }   // playback only
                let deviceName = String(cString: snd_pcm_info_get_name(pcmInfo))
                found.append(CardDevice(pcmName: "hw:CARD=\(cardID),DEV=\(device)", name: "\(cardName): \(deviceName)", cardID: cardID))
            }
        }
        return found
    }
}
