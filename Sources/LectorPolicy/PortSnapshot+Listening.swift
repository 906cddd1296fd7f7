extension PortSnapshot {
    /// A port only the listener hears: headphones, a headset, a handset. Losing one is what
    /// Android calls "becoming noisy": the next sound would come out of a loudspeaker.
    /// Older servers (before PulseAudio 14) report every port as `unknown`, so the port name
    /// decides there ("analog-output-headphones", "headset-output").
    ///
    /// ```swift
    /// PortSnapshot(name: "analog-output-headphones", kind: .headphones).isPrivateListening   // true
    /// PortSnapshot(name: "analog-output-headphones").isPrivateListening                     // true (old server)
    /// PortSnapshot(name: "hdmi-output-0", kind: .hdmi).isPrivateListening                  // false
    /// ```
    public var isPrivateListening: Bool {
        switch kind {
        case .headphones, .headset, .handset, .earpiece, .handsfree:
            return true
        case .unknown:
            let lowered = name.lowercased()
            return lowered.contains("headphone") || lowered.contains("headset")
        default:
            return false
        }
    }
}
