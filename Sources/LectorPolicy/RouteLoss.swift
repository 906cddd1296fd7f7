/// Why the narration lost its output: the platform's "becoming noisy" event. The daemon
/// pauses on any of them and never resumes by itself when the device comes back (Android's
/// ACTION_AUDIO_BECOMING_NOISY, iOS's "old device unavailable").
///
/// ```swift
/// let loss = RouteLoss.headphonesUnplugged(sink: "alsa_output.pci-0000_00_1f.3.analog-stereo",
///                                          port: "analog-output-headphones")
/// loss.pausedBecause    // "headphones-unplugged"
/// ```
public enum RouteLoss: Equatable, Sendable {
    /// The sink our stream played on is gone (USB or Bluetooth device disconnected, module unloaded).
    case deviceRemoved(sink: String)
    /// Same sink, but its headphone/headset port was unplugged or switched away from.
    case headphonesUnplugged(sink: String, port: String)
    /// Our stream now plays on another sink (moved by the user or the server).
    case streamMoved(from: String, to: String)

    /// The machine-readable reason the daemon reports with the pause.
    public var pausedBecause: String {
        switch self {
        case .deviceRemoved: return "device-removed"
        case .headphonesUnplugged: return "headphones-unplugged"
        case .streamMoved: return "stream-moved"
        }
    }

    /// One sentence for the journal.
    public var logDescription: String {
        switch self {
        case let .deviceRemoved(sink):
            return "Output device \(sink) was removed; pausing."
        case let .headphonesUnplugged(sink, port):
            return "Headphones unplugged (port \(port) of \(sink)); pausing."
        case let .streamMoved(from, to):
            return "Playback moved from \(from) to \(to); pausing."
        }
    }
}
