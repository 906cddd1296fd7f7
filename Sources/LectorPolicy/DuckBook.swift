/// The bookkeeping of one duck session: which streams we lowered, from what, and which
/// volumes we set on them, across several back-to-back announcements. Restoring is the risky
/// part (a ducked volume saved by the server sticks forever; a volume the user chose must
/// not be overwritten), so the book restores a stream only while it still has the last
/// volume we set.
///
/// ```swift
/// var book = DuckBook()
/// for stream in toDuck {
///     let ramp = book.duck(stream, level: policy.level, steps: 5)
///     // daemon: for each step, book.willSet(step, on: stream.index), then set it, a few ms apart
/// }
/// // on each sink-input change event:
/// if book.observe(changed) == .changedByUser { stopRamp(changed.index) }
/// // after the last announcement:
/// let journal = book.journal()            // keeps what removed streams need
/// for restore in book.release() where DuckBook.shouldRestore(current: volumeNow(restore.stream), restore) {
///     setVolume(restore.original, on: restore.stream)
/// }
/// ```
public struct DuckBook: Sendable {
    /// What a change event tells about a stream's volume.
    public enum Observation: Equatable, Sendable {
        /// Not a stream we ducked.
        case unknown
        /// A volume we set (events may lag several sets behind), or its volume before the duck.
        case ours
        /// Someone else set it: the entry is dropped and never restored; stop its ramp.
        case changedByUser
    }

    /// What to give back to one stream when the duck ends.
    public struct Restore: Equatable, Sendable {
        public var stream: UInt32
        /// The last volume we set: restore only if the stream still has it.
        public var expected: ChannelVolumes
        /// Its volume before the duck.
        public var original: ChannelVolumes
        public var restoreKey: String?
        /// Every volume we set (or planned) during the duck: a release in the middle of a ramp
        /// finds the stream at one of them, or still at `original` with our sets in flight.
        public var volumesSet: [ChannelVolumes]

        public init(stream: UInt32, expected: ChannelVolumes, original: ChannelVolumes, restoreKey: String?,
                    volumesSet: [ChannelVolumes] = []) {
            self.stream = stream
            self.expected = expected
            self.original = original
            self.restoreKey = restoreKey
            self.volumesSet = volumesSet
        }

        /// A fade back up from `expected`, ending exactly at `original`. Before each step the
        /// daemon checks the stream still has the previous step's volume (else the user moved
        /// it: stop), and it adds the steps to the journal (``DuckJournal/record(_:on:)``) first,
        /// so a crash mid-fade is still recovered.
        public func rampUp(steps: Int) -> [ChannelVolumes] {
            expected.ramp(to: original, steps: steps)
        }
    }

    /// Ducked streams by sink input index.
    public private(set) var entries: [UInt32: DuckEntry] = [:]
    /// Streams that went away while lowered by us. The server may have saved the ducked
    /// volume under their ``DuckEntry/restoreKey``; ``journal(raises:)`` keeps them for
    /// ``DuckJournal/savedEntryRepairs(saved:tolerance:)``.
    public private(set) var removedWhileDucked: [DuckEntry] = []

    public init() {}

    /// Some stream is held lowered by us now.
    public var isDucking: Bool { !entries.isEmpty }

    /// Starts ducking `stream` (also one that starts while an announcement plays): records its
    /// volume and returns the ramp down, `steps` volumes from just below it to exactly
    /// `volume.scaled(by: level)`. The daemon sets the first at once, the rest a few ms apart,
    /// calling ``willSet(_:on:)`` before each. A stream already in the book returns `[]`, and so
    /// does one whose volume `level` would not change.
    public mutating func duck(_ stream: StreamSnapshot, level: Double, steps: Int) -> [ChannelVolumes] {
        guard entries[stream.index] == nil else { return [] }
        let entry = DuckEntry(stream: stream, level: level)
        let ramp = entry.original.ramp(to: entry.target, steps: steps)
        guard !ramp.isEmpty else { return [] }
        entries[stream.index] = entry
        return ramp
    }

    /// The daemon is about to set `volume` on `stream` (a ramp step). Streams not in the book are ignored.
    public mutating func willSet(_ volume: ChannelVolumes, on stream: UInt32) {
        guard var entry = entries[stream] else { return }
        entry.volumesSet.removeAll { $0 == volume }
        entry.volumesSet.append(volume)
        entries[stream] = entry
    }

    /// Classifies a change event's volume for a stream. A volume we set during this duck (or
    /// its original, which a change event sent before our first set still shows) is ours;
    /// anything else means the user moved it: the entry is dropped and never restored.
    /// Mute changes are not volume changes and count as ours.
    public mutating func observe(_ stream: StreamSnapshot) -> Observation {
        guard let entry = entries[stream.index] else { return .unknown }
        if entry.isOurs(stream.volume) || stream.volume == entry.original { return .ours }
        entries[stream.index] = nil
        return .changedByUser
    }

    /// The stream is gone. If we had lowered it and the server saves volumes under a key, its
    /// saved volume may be a ducked one: the entry moves to ``removedWhileDucked``.
    public mutating func streamRemoved(_ index: UInt32) {
        guard let entry = entries.removeValue(forKey: index) else { return }
        if entry.restoreKey != nil, !entry.volumesSet.isEmpty { removedWhileDucked.append(entry) }
    }

    /// What the daemon writes to disk while ducking: every entry, including streams removed
    /// while ducked, and the sinks raised for `ensure-audible`.
    public func journal(raises: [SinkRaise] = []) -> DuckJournal {
        DuckJournal(entries: entries.values.sorted { $0.stream < $1.stream } + removedWhileDucked, raises: raises)
    }

    /// Ends the duck: one ``Restore`` per remaining stream we set a volume on, by index; the
    /// book is empty afterwards. The daemon restores `original` only where
    /// ``shouldRestore(current:_:)`` says so. Take ``journal(raises:)`` before, for the saved
    /// entries of streams removed meanwhile.
    public mutating func release() -> [Restore] {
        let restores = entries.values.sorted { $0.stream < $1.stream }.compactMap { entry -> Restore? in
            guard let expected = entry.lastSet else { return nil }
            return Restore(stream: entry.stream, expected: expected, original: entry.original, restoreKey: entry.restoreKey,
                           volumesSet: entry.volumesSet)
        }
        entries = [:]
        removedWhileDucked = []
        return restores
    }

    /// Restore only a stream whose volume is still one we set (the last, or a ramp step when the
    /// duck ends mid-ramp), or still its original while our sets are in flight (then setting
    /// `original` again overtakes them); any other volume was chosen by the user after us.
    ///
    /// ```swift
    /// DuckBook.shouldRestore(current: ChannelVolumes([19661, 19661]), restore)   // true if expected is 30 %
    /// ```
    public static func shouldRestore(current: ChannelVolumes, _ restore: Restore) -> Bool {
        current == restore.expected || current == restore.original || restore.volumesSet.contains(current)
    }
}
