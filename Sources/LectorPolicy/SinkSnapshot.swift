/// One sink (an output device) as the sound server described it at one moment.
public struct SinkSnapshot: Hashable, Codable, Sendable {
    public var index: UInt32
    /// e.g. "alsa_output.pci-0000_00_1f.3.analog-stereo", "bluez_sink.00_1B_66_AA_BB_CC.a2dp_sink"
    public var name: String
    public var description: String
    /// The sink's property list: `device.form_factor`, `device.bus`, `device.api`, ...
    public var properties: [String: String]
    public var ports: [PortSnapshot]
    public var activePort: String?
    public var volume: ChannelVolumes
    public var muted: Bool

    public init(index: UInt32, name: String, description: String = "", properties: [String: String] = [:],
                ports: [PortSnapshot] = [], activePort: String? = nil,
                volume: ChannelVolumes = ChannelVolumes(channels: 2, value: ChannelVolumes.norm), muted: Bool = false) {
        self.index = index
        self.name = name
        self.description = description
        self.properties = properties
        self.ports = ports
        self.activePort = activePort
        self.volume = volume
        self.muted = muted
    }

    public var formFactor: String? { properties["device.form_factor"] }
    public var bus: String? { properties["device.bus"] }
    public var activePortSnapshot: PortSnapshot? { ports.first { $0.name == activePort } }
}
