/// One client stream: a playback stream (sink input) or a recording stream (source output).
public struct StreamSnapshot: Hashable, Codable, Sendable {
    public var index: UInt32
    /// The sink (playback) or source (recording) it is connected to.
    public var device: UInt32
    public var properties: [String: String]
    public var volume: ChannelVolumes
    public var muted: Bool
    public var corked: Bool
    /// Name of the module that owns it ("module-loopback"), if a module does.
    public var ownerModule: String?

    public init(index: UInt32, device: UInt32, properties: [String: String] = [:],
                volume: ChannelVolumes = ChannelVolumes(channels: 2, value: ChannelVolumes.norm),
                muted: Bool = false, corked: Bool = false, ownerModule: String? = nil) {
        self.index = index
        self.device = device
        self.properties = properties
        self.volume = volume
        self.muted = muted
        self.corked = corked
        self.ownerModule = ownerModule
    }

    public var role: String? { properties["media.role"] }
    public var applicationName: String? { properties["application.name"] }
    public var applicationID: String? { properties["application.id"] }
    public var mediaName: String? { properties["media.name"] }
    /// A call: `media.role=phone` (PulseAudio and pipewire-pulse both use it for VoIP apps).
    public var isCall: Bool { role == "phone" }
}
