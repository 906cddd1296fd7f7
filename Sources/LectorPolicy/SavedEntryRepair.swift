/// A stream-restore entry to rewrite (`pa_ext_stream_restore_write`, keeping its channel map,
/// device and mute): it holds a ducked volume that would otherwise greet the application
/// every time it starts.
///
/// ```swift
/// SavedEntryRepair(key: "sink-input-by-media-role:music", volume: ChannelVolumes([65536, 65536]))
/// ```
public struct SavedEntryRepair: Hashable, Sendable {
    public var key: String
    /// The volume to save instead: the stream's volume before the duck.
    public var volume: ChannelVolumes

    public init(key: String, volume: ChannelVolumes) {
        self.key = key
        self.volume = volume
    }
}
