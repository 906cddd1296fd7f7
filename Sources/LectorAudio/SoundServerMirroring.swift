import LectorPolicy

/// What the audio policy needs of the sound server: its picture (sinks, streams, default sink),
/// change events, and the few writes it makes. `SoundServerMirror` is the real one; in-process
/// tests use a fake that applies the writes to its own snapshot.
@MainActor
public protocol SoundServerMirroring: AnyObject {
    var snapshot: AudioSnapshot { get }
    /// True once the first full listing has arrived on the current connection.
    var isSynced: Bool { get }
    var onChange: (@MainActor (_ before: AudioSnapshot, _ change: SoundServerMirror.Change) -> Void)? { get set }
    /// The connection is gone: forget everything.
    func detach()
    func setPlaybackVolume(_ index: UInt32, _ volume: ChannelVolumes, done: ((Bool) -> Void)?)
    func setSinkVolume(_ index: UInt32, _ volume: ChannelVolumes, done: ((Bool) -> Void)?)
    func setSinkMute(_ index: UInt32, _ muted: Bool, done: ((Bool) -> Void)?)
    /// The server's saved stream volumes; nil if it has no such extension.
    func readSavedStreams(_ completion: @escaping ([SavedStreamEntry]?) -> Void)
    /// `applyImmediately`: running streams of those keys take the volume now too.
    func writeSavedStreams(_ entries: [SavedStreamEntry], applyImmediately: Bool, done: ((Bool) -> Void)?)
}

extension SoundServerMirroring {
    public func setPlaybackVolume(_ index: UInt32, _ volume: ChannelVolumes) { setPlaybackVolume(index, volume, done: nil) }
    public func setSinkVolume(_ index: UInt32, _ volume: ChannelVolumes) { setSinkVolume(index, volume, done: nil) }
    public func setSinkMute(_ index: UInt32, _ muted: Bool) { setSinkMute(index, muted, done: nil) }
    public func writeSavedStreams(_ entries: [SavedStreamEntry], done: ((Bool) -> Void)? = nil) {
        writeSavedStreams(entries, applyImmediately: false, done: done)
    }
}

extension SoundServerMirror: SoundServerMirroring {}
