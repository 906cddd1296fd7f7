import LectorAudio
import LectorPolicy

/// A sound server in memory for in-process tests of the audio policy: the test adds and removes
/// sinks and streams (each change reaches `onChange` with the picture from before, as the real
/// mirror reports it), and the policy's writes change the picture and are recorded in order.
///
/// ```swift
/// let server = FakeSoundServer()
/// server.addSink(SinkSnapshot(index: 1, name: "speakers"))
/// server.addPlayback(StreamSnapshot(index: 7, device: 1, properties: ["media.role": "music"]))
/// // ... the policy ducks: server.volumeWrites == [(7, 30 %), ...]
/// ```
@MainActor
public final class FakeSoundServer: SoundServerMirroring {
    public private(set) var snapshot = AudioSnapshot()
    public private(set) var isSynced = true
    public var onChange: (@MainActor (_ before: AudioSnapshot, _ change: SoundServerMirror.Change) -> Void)?
    /// Every playback-stream volume the policy set, in order.
    public private(set) var volumeWrites: [(stream: UInt32, volume: ChannelVolumes)] = []
    /// The saved stream volumes (stream-restore), as the policy reads and writes them.
    public var saved: [String: ChannelVolumes] = [:]

    public init() {}

    // MARK: - the test's side

    public func addSink(_ sink: SinkSnapshot) { change(.sink(sink.index)) { $0.sinks[sink.index] = sink } }
    public func removeSink(_ index: UInt32) { change(.sinkRemoved(index)) { $0.sinks[index] = nil } }
    public func addPlayback(_ stream: StreamSnapshot) { change(.playback(stream.index)) { $0.playbacks[stream.index] = stream } }
    public func removePlayback(_ index: UInt32) { change(.playbackRemoved(index)) { $0.playbacks[index] = nil } }
    public func addRecording(_ stream: StreamSnapshot) { change(.recording(stream.index)) { $0.recordings[stream.index] = stream } }
    public func removeRecording(_ index: UInt32) { change(.recordingRemoved(index)) { $0.recordings[index] = nil } }

    /// A change made by someone else (the listener moving a stream, pactl setting a volume).
    public func updatePlayback(_ index: UInt32, _ body: (inout StreamSnapshot) -> Void) {
        change(.playback(index)) { if $0.playbacks[index] != nil { body(&$0.playbacks[index]!) } }
    }

    private func change(_ change: SoundServerMirror.Change, _ apply: (inout AudioSnapshot) -> Void) {
        let before = snapshot
        apply(&snapshot)
        if snapshot != before { onChange?(before, change) }
    }

    // MARK: - SoundServerMirroring

    public func detach() {
        snapshot = AudioSnapshot()
        isSynced = false
    }

    public func setPlaybackVolume(_ index: UInt32, _ volume: ChannelVolumes, done: ((Bool) -> Void)?) {
        volumeWrites.append((index, volume))
        let exists = snapshot.playbacks[index] != nil
        updatePlayback(index) { $0.volume = volume }
        done?(exists)
    }

    public func setSinkVolume(_ index: UInt32, _ volume: ChannelVolumes, done: ((Bool) -> Void)?) {
        let exists = snapshot.sinks[index] != nil
        change(.sink(index)) { $0.sinks[index]?.volume = volume }
        done?(exists)
    }

    public func setSinkMute(_ index: UInt32, _ muted: Bool, done: ((Bool) -> Void)?) {
        let exists = snapshot.sinks[index] != nil
        change(.sink(index)) { $0.sinks[index]?.muted = muted }
        done?(exists)
    }

    public func readSavedStreams(_ completion: @escaping ([LectorAudio.SavedStreamEntry]?) -> Void) {
        completion(saved.sorted { $0.key < $1.key }.map { LectorAudio.SavedStreamEntry(name: $0.key, volume: $0.value) })
    }

    public func writeSavedStreams(_ entries: [LectorAudio.SavedStreamEntry], applyImmediately: Bool, done: ((Bool) -> Void)?) {
        for entry in entries { saved[entry.name] = entry.volume }
        done?(true)
    }
}
