/// Which other streams an announcement ducks: music and videos playing on the same sink.
///
/// Never ducked:
/// - streams on another sink (the announcement is not heard there);
/// - our own streams (the book pauses rather than ducks: it is spoken content);
/// - loopbacks: lowering one lowers whatever it forwards, often a microphone monitor or a
///   whole virtual device, and it is not an application the user knows to look at;
/// - calls (`media.role=phone`): the other person must stay audible;
/// - muted streams and streams at volume 0: nothing to lower, and touching them only risks
///   saving a volume the user never chose;
/// - corked (paused) streams: they are silent now. The daemon asks again when one starts
///   during the announcement, so a player resuming then is ducked too.
///
/// Loopbacks are recognized by their owner module (`module-loopback` on PulseAudio and on
/// pipewire-pulse, `libpipewire-module-loopback` for pipewire's own) or, as pipewire 0.3.65
/// reports them, by the `node.link-group` property starting with `loopback-` that
/// libpipewire-module-loopback gives both of its streams (also for `pw-loopback`, which has no
/// owner module), or a `node.name` starting with `output.loopback-`.
///
/// ```swift
/// let policy = DuckPolicy(level: 0.3)
/// let toDuck = snapshot.playbacks.values.filter {
///     policy.shouldDuck($0, onSink: announcementSink, ownStreams: ours)
/// }
/// ```
public struct DuckPolicy: Sendable {
    /// Fraction of each stream's own volume it is lowered to (0.3: to 30 % of what it was).
    public var level: Double = 0.3

    public init(level: Double = 0.3) {
        self.level = level
    }

    public func shouldDuck(_ stream: StreamSnapshot, onSink sink: UInt32, ownStreams: Set<UInt32>) -> Bool {
        stream.device == sink
            && !ownStreams.contains(stream.index)
            && !stream.isLoopback
            && !stream.isCall
            && !stream.muted
            && stream.volume.loudest > 0
            && !stream.corked
    }
}
