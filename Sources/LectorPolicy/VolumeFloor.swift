/// The `ensure-audible` announcement option: an announcement nobody can hear is no
/// announcement. A sink whose loudest channel is below `floor` (a fraction of 100 %) is
/// raised to it for the announcement, keeping the balance between channels, and put back
/// afterwards if nobody touched it (``SinkRaise``). A muted sink stays muted, and the
/// announcement finishes with reason `muted`, unless it is `important`: then it is unmuted
/// (and raised too if also below the floor).
///
/// ```swift
/// let sink = SinkSnapshot(index: 0, name: "alsa_output.pci-0000_00_1f.3.analog-stereo",
///                         volume: ChannelVolumes([6554, 3277]))        // 10 % / 5 %
/// VolumeFloor.plan(for: sink, floor: 0.2, important: false)
/// // .raise(to: [13107, 6554]): 20 % on the loudest, balance kept
/// ```
public enum VolumeFloor {
    public enum Plan: Equatable, Sendable {
        /// Loud enough already.
        case none
        /// Set the sink to this volume for the announcement.
        case raise(to: ChannelVolumes)
        /// Muted and not important: do not speak; finish with reason `muted`.
        case muted
        /// Important on a muted sink: unmute, and set this volume too if given.
        case unmute(andRaiseTo: ChannelVolumes?)
    }

    public static func plan(for sink: SinkSnapshot, floor: Double, important: Bool) -> Plan {
        let raised = raisedVolume(sink.volume, floor: floor)
        if sink.muted { return important ? .unmute(andRaiseTo: raised) : .muted }
        return raised.map { .raise(to: $0) } ?? .none
    }

    /// `volume` with its loudest channel exactly at `floor` and the others in proportion, or
    /// nil if it is not below the floor. Silent channels all go to the floor.
    static func raisedVolume(_ volume: ChannelVolumes, floor: Double) -> ChannelVolumes? {
        let floorValue = UInt32((Double(ChannelVolumes.norm) * Swift.min(Swift.max(floor, 0), 1)).rounded())
        let loudest = volume.loudest
        guard loudest < floorValue, volume.channels > 0 else { return nil }
        guard loudest > 0 else { return ChannelVolumes(channels: volume.channels, value: floorValue) }
        let factor = Double(floorValue) / Double(loudest)
        return ChannelVolumes(volume.values.map { $0 == loudest ? floorValue : Swift.min(floorValue, UInt32((Double($0) * factor).rounded())) })
    }
}
