/// One thing to set on the sound server to undo what a duck or an `ensure-audible` raise
/// changed: after the announcement, or at start after a crash (``DuckJournal/recovery(in:)``).
///
/// ```swift
/// switch action {
/// case let .setStreamVolume(stream, volume): pa_context_set_sink_input_volume(...)
/// case let .setSinkVolume(sink, volume): pa_context_set_sink_volume_by_index(...)
/// case let .setSinkMute(sink, muted): pa_context_set_sink_mute_by_index(...)
/// }
/// ```
public enum RecoveryAction: Hashable, Sendable {
    case setStreamVolume(stream: UInt32, volume: ChannelVolumes)
    case setSinkVolume(sink: UInt32, volume: ChannelVolumes)
    case setSinkMute(sink: UInt32, muted: Bool)
}
