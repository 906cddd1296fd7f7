/// Follows our playback stream from one sound-server snapshot to the next and says when the
/// listener lost its route (``RouteClassifier``'s rules), keeping what two consecutive
/// snapshots cannot show:
/// - **Where the stream last played.** pipewire-pulse can show a stream on no sink (device
///   `PA_INVALID_INDEX`: before its first link, parked when its sink went, and possibly between
///   two links), so a move can arrive as sink A → none → sink B, where neither step alone is a
///   move. A sink that is gone is forgotten: its loss was told when it went.
/// - **Whether the server has shown it running since Play.** A move of a corked stream loses
///   nothing, even when Play is handled before the move's event (`pactl set-default-sink X;
///   playerctl play`). But pipewire-pulse reports a stream "corked" whenever its node is not
///   running, as just after a move, so the server's cork counts only until it has shown the
///   stream running after Play.
///
/// ```swift
/// var watch = RouteWatch()
/// watch.playStarted()                                   // narration's Play
/// if let loss = watch.loss(ofStream: own, before: old, after: new), narrating {
///     pause(because: loss.pausedBecause)
/// }
/// ```
public struct RouteWatch: Sendable {
    /// The last sink our stream was attached to.
    private var lastSink: (stream: UInt32, sink: SinkSnapshot)?
    /// Our stream, once the server has shown it running since narration last started.
    private var runningSincePlay: UInt32?

    public init() {}

    /// Narration started playing: its uncork is on its way to the server.
    public mutating func playStarted() {
        runningSincePlay = nil
    }

    /// The route our stream lost between `before` and `after`, if the listener could have heard
    /// it. Call it on every change, playing or not, so the watch keeps up.
    public mutating func loss(ofStream own: UInt32, before: AudioSnapshot, after: AudioSnapshot) -> RouteLoss? {
        let before = attached(own, before)
        defer { remember(own, after) }
        guard let loss = RouteClassifier.loss(ofStream: own, before: before, after: after) else { return nil }
        if case .streamMoved = loss, before.playbacks[own]?.corked == true, runningSincePlay != own {
            return nil   // moved while corked by us: nothing was audible anywhere
        }
        return loss
    }

    /// `snapshot` with a detached stream put back on the sink it last played on.
    private func attached(_ own: UInt32, _ snapshot: AudioSnapshot) -> AudioSnapshot {
        guard let stream = snapshot.playbacks[own], snapshot.sinks[stream.device] == nil,
              let last = lastSink, last.stream == own,
              snapshot.sinks[last.sink.index].map({ $0.name == last.sink.name }) ?? true
        else { return snapshot }
        var snapshot = snapshot
        snapshot.playbacks[own]?.device = last.sink.index
        snapshot.sinks[last.sink.index] = snapshot.sinks[last.sink.index] ?? last.sink
        return snapshot
    }

    private mutating func remember(_ own: UInt32, _ snapshot: AudioSnapshot) {
        guard let stream = snapshot.playbacks[own] else {
            if lastSink?.stream == own { lastSink = nil }
            return
        }
        if let sink = snapshot.sinks[stream.device] {
            lastSink = (own, sink)
        } else if let last = lastSink, snapshot.sinks[last.sink.index]?.name != last.sink.name {
            lastSink = nil   // its sink is gone, and that loss was told: a later attach is no loss
        }
        if !stream.corked { runningSincePlay = own }
    }
}
