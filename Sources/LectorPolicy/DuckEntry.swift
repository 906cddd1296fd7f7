/// One ducked stream: what it was, what we lowered it to, and every volume we set on it, so a
/// change event (or the volume found after a crash) can be told apart from the user's hand.
///
/// ```swift
/// let entry = DuckEntry(stream: music, level: 0.3)   // original 100 %, target 30 %
/// entry.isOurs(ChannelVolumes([19661, 19661]))      // false until the daemon set it
/// ```
public struct DuckEntry: Hashable, Codable, Sendable {
    /// Sink input index.
    public var stream: UInt32
    /// Sink it played on when ducked.
    public var sink: UInt32
    public var identity: StreamIdentity
    /// Its volume before the duck: what it gets back.
    public var original: ChannelVolumes
    /// The end of the ramp down.
    public var target: ChannelVolumes
    /// Where the server saves its volume (``StreamRestoreKey``), to repair if a ducked value sticks there.
    public var restoreKey: String?
    /// Every volume we set on it during this duck, oldest first; the last is the one it should have now.
    public var volumesSet: [ChannelVolumes]

    public init(stream: UInt32, sink: UInt32, identity: StreamIdentity, original: ChannelVolumes,
                target: ChannelVolumes, restoreKey: String?, volumesSet: [ChannelVolumes] = []) {
        self.stream = stream
        self.sink = sink
        self.identity = identity
        self.original = original
        self.target = target
        self.restoreKey = restoreKey
        self.volumesSet = volumesSet
    }

    /// An entry for `stream` lowered to `level` of its volume; nothing set yet.
    public init(stream: StreamSnapshot, level: Double) {
        self.init(stream: stream.index, sink: stream.device, identity: StreamIdentity(stream),
                  original: stream.volume, target: stream.volume.scaled(by: level),
                  restoreKey: StreamRestoreKey.key(for: stream.properties))
    }

    /// The volume the stream should have now, if we set any.
    public var lastSet: ChannelVolumes? { volumesSet.last }

    /// A volume we set on it (exact comparison).
    public func isOurs(_ volume: ChannelVolumes) -> Bool { volumesSet.contains(volume) }
}
