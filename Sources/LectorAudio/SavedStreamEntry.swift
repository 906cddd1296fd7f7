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

    init(_ info: pa_ext_stream_restore_info) {
        name = PulseValues.string(info.name)
        volume = PulseValues.volumes(info.volume)
        muted = info.mute != 0
        device = info.device.map { String(cString: $0) }
        channelMap = info.channel_map
    }
}
