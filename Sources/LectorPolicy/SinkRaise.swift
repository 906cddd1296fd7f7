/// A sink we raised or unmuted for an `ensure-audible` announcement (``VolumeFloor``), and
/// how to undo it: with the same rule as ducked streams, only what is still as we left it.
///
/// ```swift
/// let plan = VolumeFloor.plan(for: sink, floor: 0.2, important: true)
/// if let raise = SinkRaise(sink, plan: plan) { journal.raises.append(raise); apply(plan) }
/// // after the announcement:
/// for action in raise.undo(current: sinkNow) { perform(action) }
/// ```
public struct SinkRaise: Hashable, Codable, Sendable {
    public var sink: UInt32
    /// The sink's name: after a restart its index may be another sink's.
    public var name: String
    /// Its volume before.
    public var original: ChannelVolumes
    /// The volume we set, if we raised it.
    public var raised: ChannelVolumes?
    /// We unmuted it.
    public var unmuted: Bool

    public init(sink: UInt32, name: String, original: ChannelVolumes, raised: ChannelVolumes?, unmuted: Bool) {
        self.sink = sink
        self.name = name
        self.original = original
        self.raised = raised
        self.unmuted = unmuted
    }

    /// What carrying out `plan` on `sink` changes; nil when the plan changes nothing.
    public init?(_ sink: SinkSnapshot, plan: VolumeFloor.Plan) {
        switch plan {
        case .none, .muted:
            return nil
        case let .raise(to: volume):
            self.init(sink: sink.index, name: sink.name, original: sink.volume, raised: volume, unmuted: false)
        case let .unmute(andRaiseTo: volume):
            self.init(sink: sink.index, name: sink.name, original: sink.volume, raised: volume, unmuted: true)
        }
    }

    /// Puts the sink back as far as the user left it alone: the volume if it is still the one
    /// we set; the mute if it is still unmuted and its volume untouched. Nothing for another
    /// sink (other index or name).
    public func undo(current: SinkSnapshot) -> [RecoveryAction] {
        guard current.index == sink, current.name == name else { return [] }
        let volumeUntouched = current.volume == (raised ?? original)
        var actions: [RecoveryAction] = []
        if unmuted, !current.muted, volumeUntouched { actions.append(.setSinkMute(sink: sink, muted: true)) }
        if raised != nil, volumeUntouched { actions.append(.setSinkVolume(sink: sink, volume: original)) }
        return actions
    }
}
