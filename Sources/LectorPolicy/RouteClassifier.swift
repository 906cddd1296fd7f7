/// Tells from two consecutive snapshots whether our playback stream just lost its route
/// ("becoming noisy"), so the daemon can pause before the book blares from the speakers.
///
/// The daemon keeps one ``AudioSnapshot`` up to date from subscription events and calls
/// this with the state before and after each event:
///
/// ```swift
/// if let loss = RouteClassifier.loss(ofStream: ourSinkInput, before: old, after: new) {
///     player.pause(reason: loss.pausedBecause)
///     log(loss.logDescription)
/// }
/// ```
///
/// In this order:
/// 1. The sink our stream was on is gone (no sink with that index and name) →
///    ``RouteLoss/deviceRemoved(sink:)``, whatever the stream's device says: events arrive one
///    by one, so the sink may vanish before the stream's move is seen, or after.
/// 2. The sink is still there, its active port was a private listening port
///    (``PortSnapshot/isPrivateListening``) not known to be unavailable, and now that port is
///    unavailable, or another port is active (PulseAudio switches away from unplugged
///    headphones by itself, in the same event or the next) →
///    ``RouteLoss/headphonesUnplugged(sink:port:)``, once per unplug.
/// 3. Our stream is now on another sink that exists → ``RouteLoss/streamMoved(from:to:)``.
///
/// Nothing otherwise: our stream missing from either snapshot, a sink appearing, the default
/// sink changing, a port becoming headphones, speakers ↔ HDMI switches, availability going
/// `unknown` → `yes`. An HDMI or DisplayPort port going unavailable is not a loss either: the
/// issue asks for headphones and headsets only, and a monitor that sleeps or is switched to
/// another input also reports its port unavailable, which should not stop the book.
///
/// Note that rule 3 also fires when the server moves us to a device that just appeared
/// (module-switch-on-connect, or pipewire following a new default sink).
public enum RouteClassifier {
    public static func loss(ofStream own: UInt32, before: AudioSnapshot, after: AudioSnapshot) -> RouteLoss? {
        guard let streamBefore = before.playbacks[own], let streamAfter = after.playbacks[own],
              let sinkBefore = before.sinks[streamBefore.device]
        else { return nil }

        // 1. Same index and name: an index reused by another sink is not our device.
        guard let sinkAfter = after.sinks[sinkBefore.index], sinkAfter.name == sinkBefore.name else {
            return .deviceRemoved(sink: sinkBefore.name)
        }

        // 2. A private port lost.
        // A port already unavailable before was lost then (PulseAudio's switch away from it
        // is the second half of one unplug) or never had anything plugged in.
        if let port = sinkBefore.activePortSnapshot, port.isPrivateListening, port.availability != .no {
            let portAfter = sinkAfter.ports.first { $0.name == port.name }
            if sinkAfter.activePort != port.name || portAfter?.availability == .no {
                return .headphonesUnplugged(sink: sinkBefore.name, port: port.name)
            }
        }

        // 3. Moved to another sink we know.
        if streamAfter.device != sinkBefore.index, let target = after.sinks[streamAfter.device] {
            return .streamMoved(from: sinkBefore.name, to: target.name)
        }
        return nil
    }
}
