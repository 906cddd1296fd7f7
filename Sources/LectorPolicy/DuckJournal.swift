/// What the daemon keeps on disk (under `$XDG_STATE_HOME/lector/`) while it holds streams
/// ducked or sinks raised, so a crash cannot leave them that way: at the next start it reads
/// the journal back and undoes what is still as we left it. The file I/O is the daemon's;
/// this is the value and its recovery rules.
///
/// ```swift
/// let journal = try JSONDecoder().decode(DuckJournal.self, from: data)
/// for action in journal.recovery(in: snapshot) { perform(action) }
/// for repair in journal.savedEntryRepairs(saved: streamRestoreVolumes) { write(repair) }
/// ```
public struct DuckJournal: Codable, Equatable, Sendable {
    public static let currentVersion = 1

    public var version: Int
    public var entries: [DuckEntry]
    public var raises: [SinkRaise]

    public init(entries: [DuckEntry] = [], raises: [SinkRaise] = [], version: Int = DuckJournal.currentVersion) {
        self.version = version
        self.entries = entries
        self.raises = raises
    }

    /// Adds `volumes` to what we set on `stream`, e.g. the steps of a fade back up
    /// (``DuckBook/Restore/rampUp(steps:)``) before the daemon starts it.
    public mutating func record(_ volumes: [ChannelVolumes], on stream: UInt32) {
        for index in entries.indices where entries[index].stream == stream {
            entries[index].volumesSet.append(contentsOf: volumes.filter { !entries[index].volumesSet.contains($0) })
        }
    }

    /// What to set after a crash: each stream that still exists (same index, same
    /// ``StreamIdentity``) and still has a volume we set gets its original back; each sink
    /// raised is undone as ``SinkRaise/undo(current:)`` says. Streams and sinks gone or changed
    /// by the user are left alone.
    public func recovery(in snapshot: AudioSnapshot) -> [RecoveryAction] {
        var actions: [RecoveryAction] = []
        for entry in entries {
            guard let stream = snapshot.playbacks[entry.stream],
                  entry.identity.matches(StreamIdentity(stream)),
                  entry.isOurs(stream.volume), stream.volume != entry.original
            else { continue }
            let action = RecoveryAction.setStreamVolume(stream: entry.stream, volume: entry.original)
            if !actions.contains(action) { actions.append(action) }
        }
        for raise in raises {
            guard let sink = snapshot.sinks[raise.sink] else { continue }
            actions.append(contentsOf: raise.undo(current: sink))
        }
        return actions
    }

    /// Saved stream-restore entries (key → volume, from `pa_ext_stream_restore_read`) that hold
    /// a volume we set while ducking: each gets the original volume of the stream that was
    /// saved under that key. Saved volumes are compared within `tolerance` raw units:
    /// pipewire-pulse keeps them as floats written with six decimals, which may not read back
    /// to the exact integer (live volumes do, and are compared exactly).
    ///
    /// ```swift
    /// journal.savedEntryRepairs(saved: ["sink-input-by-media-role:music": ChannelVolumes([19661, 19661])])
    /// // [SavedEntryRepair(key: "sink-input-by-media-role:music", volume: [65536, 65536])]
    /// ```
    public func savedEntryRepairs(saved: [String: ChannelVolumes], tolerance: UInt32 = 8) -> [SavedEntryRepair] {
        saved.keys.sorted().compactMap { key in
            let volume = saved[key]!
            let match = entries.first { entry in
                entry.restoreKey == key && !volume.isClose(to: entry.original, tolerance: tolerance)
                    && entry.volumesSet.contains { $0.isClose(to: volume, tolerance: tolerance) }
            }
            return match.map { SavedEntryRepair(key: key, volume: $0.original) }
        }
    }
}
