import LectorPolicy

/// Sinks and streams as `pactl list sinks` / `pactl list sink-inputs` (libpulse's
/// `pa_sink_info` / `pa_sink_input_info`) report them on real machines, trimmed to what the
/// policy reads. Indexes are arbitrary but stable, as a server hands them out.
enum RealMachine {
    // MARK: Laptop, Intel HDA (PulseAudio 16, ALC257): one sink, speaker and headphone jack ports

    static let laptopIndex: UInt32 = 47
    static let laptopName = "alsa_output.pci-0000_00_1f.3.analog-stereo"

    /// `Ports:` as PulseAudio prints them:
    /// `analog-output-speaker: Speakers (type: Speaker, priority: 10000, availability group: Legacy 3, availability unknown)`
    /// `analog-output-headphones: Headphones (type: Headphones, priority: 9900, availability group: Legacy 2, not available)`
    /// Jack sensing: with headphones in, the speaker path reports `not available` and the
    /// headphones `available`; unplugged, headphones `not available`, speaker `unknown`.
    static func laptop(active: String = "analog-output-speaker",
                       speaker: PortSnapshot.Availability = .unknown,
                       headphones: PortSnapshot.Availability = .no,
                       headphonesKind: PortSnapshot.Kind = .headphones,
                       speakerKind: PortSnapshot.Kind = .speaker,
                       volume: ChannelVolumes = ChannelVolumes([45875, 45875]), muted: Bool = false) -> SinkSnapshot {
        SinkSnapshot(
            index: laptopIndex, name: laptopName, description: "Built-in Audio Analog Stereo",
            properties: [
                "alsa.card": "0", "alsa.card_name": "HDA Intel PCH", "alsa.long_card_name": "HDA Intel PCH at 0x6001190000 irq 147",
                "alsa.driver_name": "snd_hda_intel", "device.api": "alsa", "device.bus": "pci",
                "device.bus_path": "pci-0000:00:1f.3", "device.class": "sound", "device.form_factor": "internal",
                "device.string": "front:0", "device.profile.name": "analog-stereo",
                "device.description": "Built-in Audio Analog Stereo", "device.icon_name": "audio-card-pci",
            ],
            ports: [
                PortSnapshot(name: "analog-output-speaker", description: "Speakers", kind: speakerKind, availability: speaker),
                PortSnapshot(name: "analog-output-headphones", description: "Headphones", kind: headphonesKind, availability: headphones),
            ],
            activePort: active, volume: volume, muted: muted)
    }

    /// Headphones plugged in: PulseAudio (module-switch-on-port-available) made them active.
    static let laptopHeadphonesIn = laptop(active: "analog-output-headphones", speaker: .no, headphones: .yes)
    /// Just unplugged, first event: jack sensing says no, the active port not switched yet.
    static let laptopHeadphonesOutNotSwitched = laptop(active: "analog-output-headphones", speaker: .unknown, headphones: .no)
    /// Unplugged and switched back to the speakers.
    static let laptopHeadphonesOut = laptop(active: "analog-output-speaker", speaker: .unknown, headphones: .no)

    // MARK: HDMI on the same card (profile output:hdmi-stereo)

    static let hdmiIndex: UInt32 = 48
    static let hdmiName = "alsa_output.pci-0000_00_1f.3.hdmi-stereo"

    /// `hdmi-output-0: HDMI / DisplayPort (type: HDMI, priority: 5900, availability group: Legacy 4, available)`
    static func hdmi(_ availability: PortSnapshot.Availability) -> SinkSnapshot {
        SinkSnapshot(
            index: hdmiIndex, name: hdmiName, description: "Built-in Audio Digital Stereo (HDMI)",
            properties: [
                "alsa.card_name": "HDA Intel PCH", "device.api": "alsa", "device.bus": "pci",
                "device.bus_path": "pci-0000:00:1f.3", "device.class": "sound", "device.string": "hdmi:0",
                "device.profile.name": "hdmi-stereo", "device.description": "Built-in Audio Digital Stereo (HDMI)",
            ],
            ports: [PortSnapshot(name: "hdmi-output-0", description: "HDMI / DisplayPort", kind: .hdmi, availability: availability)],
            activePort: "hdmi-output-0")
    }

    // MARK: USB headset (PulseAudio)

    static let usbHeadsetIndex: UInt32 = 52
    static let usbHeadsetName = "alsa_output.usb-Logitech_USB_Headset-00.analog-stereo"

    /// `analog-output: Analog Output (type: Analog, priority: 9900, availability unknown)`:
    /// a USB headset has no jack; only its form factor says it is private.
    static let usbHeadset = SinkSnapshot(
        index: usbHeadsetIndex, name: usbHeadsetName, description: "Logitech USB Headset Analog Stereo",
        properties: [
            "alsa.card_name": "Logitech USB Headset", "alsa.driver_name": "snd_usb_audio", "device.api": "alsa",
            "device.bus": "usb", "device.bus_path": "pci-0000:00:14.0-usb-0:2:1.0", "device.class": "sound",
            "device.form_factor": "headset", "device.vendor.id": "046d", "device.product.id": "0a8f",
            "device.serial": "Logitech_USB_Headset", "device.string": "front:2",
            "device.profile.name": "analog-stereo", "device.description": "Logitech USB Headset Analog Stereo",
        ],
        ports: [PortSnapshot(name: "analog-output", description: "Analog Output", kind: .analog, availability: .unknown)],
        activePort: "analog-output", volume: ChannelVolumes([32768, 32768]))

    // MARK: Bluetooth headphones

    static let pulseBluetoothIndex: UInt32 = 61
    /// PulseAudio (module-bluez5-device), A2DP:
    /// `headphone-output: Headphone (type: Headphones, priority: 0, available)`
    static let pulseBluetooth = SinkSnapshot(
        index: pulseBluetoothIndex, name: "bluez_sink.00_1B_66_AA_BB_CC.a2dp_sink", description: "MOMENTUM 3",
        properties: [
            "bluetooth.protocol": "a2dp_sink", "device.description": "MOMENTUM 3", "device.string": "00:1B:66:AA:BB:CC",
            "device.api": "bluez", "device.class": "sound", "device.bus": "bluetooth", "device.form_factor": "headphone",
            "bluez.path": "/org/bluez/hci0/dev_00_1B_66_AA_BB_CC", "bluez.class": "0x240418", "bluez.alias": "MOMENTUM 3",
            "device.icon_name": "audio-headphones-bluetooth",
        ],
        ports: [PortSnapshot(name: "headphone-output", description: "Headphone", kind: .headphones, availability: .yes)],
        activePort: "headphone-output", volume: ChannelVolumes([39322, 39322]))

    static let pipewireBluetoothIndex: UInt32 = 74
    /// pipewire-pulse 0.3.65 (WirePlumber's bluez monitor), A2DP:
    /// `headphone-output: Headphone (type: Headphones, priority: 0, available)`
    static let pipewireBluetooth = SinkSnapshot(
        index: pipewireBluetoothIndex, name: "bluez_output.00_1B_66_AA_BB_CC.1", description: "MOMENTUM 3",
        properties: [
            "api.bluez5.address": "00:1B:66:AA:BB:CC", "api.bluez5.codec": "sbc", "api.bluez5.profile": "a2dp-sink",
            "device.api": "bluez5", "device.bus": "bluetooth", "device.form_factor": "headphone",
            "device.description": "MOMENTUM 3", "device.icon_name": "audio-headphones-bluetooth",
            "media.class": "Audio/Sink", "node.name": "bluez_output.00_1B_66_AA_BB_CC.1",
            "factory.name": "api.bluez5.a2dp.sink",
        ],
        ports: [PortSnapshot(name: "headphone-output", description: "Headphone", kind: .headphones, availability: .yes)],
        activePort: "headphone-output")

    // MARK: Null sinks, as the integration tests load them

    /// `pactl load-module module-null-sink sink_name=hp sink_properties='device.form_factor=headphone'`
    /// on pipewire-pulse 0.3.65: no ports at all.
    static let nullHeadphones = SinkSnapshot(
        index: 36, name: "hp", description: "hp Audio/Sink sink",
        properties: [
            "node.name": "hp", "device.form_factor": "headphone", "media.class": "Audio/Sink",
            "device.description": "hp Audio/Sink sink", "factory.name": "support.null-audio-sink",
            "pulse.module.id": "536870913",
        ])
    /// `pactl load-module module-null-sink sink_name=spk`
    static let nullSpeakers = SinkSnapshot(
        index: 39, name: "spk", description: "spk Audio/Sink sink",
        properties: [
            "node.name": "spk", "media.class": "Audio/Sink", "device.description": "spk Audio/Sink sink",
            "factory.name": "support.null-audio-sink", "pulse.module.id": "536870914",
        ])

    // MARK: Streams

    static let lectorIndex: UInt32 = 57

    /// Our narration stream.
    static func lector(on sink: UInt32, index: UInt32 = lectorIndex, corked: Bool = false) -> StreamSnapshot {
        StreamSnapshot(index: index, device: sink, properties: [
            "media.role": "music", "media.name": "Chapter 3", "application.name": "Lector",
            "application.id": "io.github.lector", "application.process.id": "2311",
            "module-stream-restore.id": "sink-input-by-media-role:music",
        ], corked: corked)
    }

    /// Firefox playing a video: no role; the server's restore id is by application name.
    static func firefox(on sink: UInt32, index: UInt32 = 63, volume: ChannelVolumes = ChannelVolumes([65536, 65536]),
                        pid: String = "4242") -> StreamSnapshot {
        StreamSnapshot(index: index, device: sink, properties: [
            "application.name": "Firefox", "application.process.id": pid, "application.process.binary": "firefox-esr",
            "media.name": "AudioStream", "application.icon_name": "firefox-esr",
            "module-stream-restore.id": "sink-input-by-application-name:Firefox",
        ], volume: volume)
    }

    /// Rhythmbox (GStreamer pulsesink): role music.
    static func rhythmbox(on sink: UInt32, index: UInt32 = 64, volume: ChannelVolumes = ChannelVolumes([52429, 52429]),
                          corked: Bool = false) -> StreamSnapshot {
        StreamSnapshot(index: index, device: sink, properties: [
            "application.name": "Rhythmbox", "application.id": "org.gnome.Rhythmbox3", "application.process.id": "5150",
            "media.role": "music", "media.name": "Playback Stream",
            "module-stream-restore.id": "sink-input-by-media-role:music",
        ], volume: volume, corked: corked)
    }

    /// A call: its playback and recording streams (media.role=phone), as pipewire-pulse
    /// listed `pacat --property=media.role=phone`.
    static func callPlayback(on sink: UInt32, index: UInt32 = 70, corked: Bool = false) -> StreamSnapshot {
        StreamSnapshot(index: index, device: sink, properties: [
            "application.name": "Zoom", "application.process.id": "6001", "media.role": "phone",
            "media.name": "playStream", "module-stream-restore.id": "sink-input-by-media-role:phone",
        ], corked: corked)
    }

    static func callRecording(index: UInt32 = 71, corked: Bool = false) -> StreamSnapshot {
        StreamSnapshot(index: index, device: 2, properties: [
            "application.name": "Zoom", "application.process.id": "6001", "media.role": "phone",
            "media.name": "RecordStream", "module-stream-restore.id": "source-output-by-media-role:phone",
        ], corked: corked)
    }

    /// `pactl load-module module-loopback source=spk.monitor sink=hp` on pipewire-pulse 0.3.65.
    static func pipewirePulseLoopback(on sink: UInt32) -> StreamSnapshot {
        StreamSnapshot(index: 42, device: sink, properties: [
            "target.object": "hp", "node.group": "loopback-536870915", "pulse.module.id": "536870915",
            "node.link-group": "loopback-15987-12", "node.virtual": "true", "node.name": "output.loopback-15987-12",
            "media.name": "loopback-15987-12 output", "media.class": "Stream/Output/Audio",
            "module-stream-restore.id": "sink-input-by-media-name:loopback-15987-12 output",
        ], ownerModule: "module-loopback")
    }

    /// `pw-loopback` on pipewire 0.3.65: no owner module.
    static func pwLoopback(on sink: UInt32) -> StreamSnapshot {
        StreamSnapshot(index: 48, device: sink, properties: [
            "node.group": "pw-loopback-16259", "node.link-group": "loopback-16259-18", "node.virtual": "true",
            "node.name": "output.pw-loopback-16259", "media.name": "pw-loopback-16259 output",
            "media.class": "Stream/Output/Audio",
        ])
    }

    /// PulseAudio's module-loopback: `media.role = "abstract"`, owner module-loopback.
    static func pulseLoopback(on sink: UInt32) -> StreamSnapshot {
        StreamSnapshot(index: 49, device: sink, properties: [
            "media.role": "abstract", "media.name": "Loopback from Monitor of Null Output",
            "media.icon_name": "audio-card",
        ], ownerModule: "module-loopback")
    }

    // MARK: Building snapshots

    static func snapshot(_ sinks: [SinkSnapshot], _ streams: [StreamSnapshot] = [], recordings: [StreamSnapshot] = [],
                         defaultSink: String? = nil) -> AudioSnapshot {
        AudioSnapshot(sinks: Dictionary(uniqueKeysWithValues: sinks.map { ($0.index, $0) }),
                      playbacks: Dictionary(uniqueKeysWithValues: streams.map { ($0.index, $0) }),
                      recordings: Dictionary(uniqueKeysWithValues: recordings.map { ($0.index, $0) }),
                      defaultSinkName: defaultSink ?? sinks.first?.name)
    }
}
