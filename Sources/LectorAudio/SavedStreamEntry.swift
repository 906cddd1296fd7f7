import CPulse
import LectorPolicy

/// One saved stream volume (`pa_ext_stream_restore_info`), e.g.
/// "sink-input-by-media-role:music" → 100 %. Keeps the channel map so it can be written back.
public struct SavedStreamEntry {
    public var name: String
    public var volume: ChannelVolumes
    public var muted: Bool
    public var device: String?
    let channelMap: pa_channel_map

    /// An entry the server did not list (pipewire-pulse lists only what clients wrote, not what
    /// WirePlumber saved by itself): written with the default channel map for its channels.
    public init(name: String, volume: ChannelVolumes) {
        self.name = name
        self.volume = volume
        muted = false
        device = nil
        var map = pa_channel_map()
        pa_channel_map_init_auto(&map, UInt32(max(1, min(volume.channels, Int(PA_CHANNELS_MAX)))), PA_CHANNEL_MAP_DEFAULT)
        channelMap = map
    }

    init(_ info: pa_ext_stream_restore_info) {
        name = PulseValues.string(info.name)
        volume = PulseValues.volumes(info.volume)
        muted = info.mute != 0
        device = info.device.map { String(cString: $0) }
        channelMap = info.channel_map
    }
}
