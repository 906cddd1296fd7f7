/// The name under which the server saves a playback stream's volume (PulseAudio's
/// module-stream-restore, `get_name()` / `pa_proplist_get_stream_group()`): a ducked volume
/// saved there comes back the next time the application starts, so the daemon repairs
/// that entry with `pa_ext_stream_restore_write`.
///
/// In order: the `module-stream-restore.id` property as is (the server sets it on the stream,
/// pipewire-pulse too), else `sink-input-by-media-role:<role>`, `-by-application-id:`,
/// `-by-application-name:`, `-by-media-name:`. With none of these PulseAudio saves under
/// `sink-input-fallback:(null)`, a key pipewire-pulse's ext-stream-restore does not accept
/// (it maps only the four `-by-` forms to WirePlumber's `restore.stream.Output/Audio.*`
/// keys): nil.
///
/// ```swift
/// StreamRestoreKey.key(for: ["media.role": "music", "application.name": "Rhythmbox"])
/// // "sink-input-by-media-role:music"
/// StreamRestoreKey.key(for: ["application.name": "Firefox", "media.name": "AudioStream"])
/// // "sink-input-by-application-name:Firefox"
/// ```
public enum StreamRestoreKey {
    public static let identificationProperty = "module-stream-restore.id"

    public static func key(for properties: [String: String]) -> String? {
        if let id = properties[identificationProperty] { return id }
        let prefix = "sink-input"
        if let role = properties["media.role"] { return "\(prefix)-by-media-role:\(role)" }
        if let id = properties["application.id"] { return "\(prefix)-by-application-id:\(id)" }
        if let name = properties["application.name"] { return "\(prefix)-by-application-name:\(name)" }
        if let name = properties["media.name"] { return "\(prefix)-by-media-name:\(name)" }
        return nil
    }
}
