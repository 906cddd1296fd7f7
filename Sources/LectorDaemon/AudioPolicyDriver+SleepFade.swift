import LectorAudio
import LectorPolicy

/// The sleep timer's fade, carried out on the sound server's volume of Lector's own narration
/// stream (sink input), never on a sink or another application's stream.
///
/// Why the server's stream volume and not our samples: the server applies a volume change to
/// what it plays within milliseconds, while scaled samples are heard only once everything
/// buffered ahead of them has played, and narration buffers more and more ahead (seconds, for
/// power); a fade done at synthesis would be heard late and would still be fading after the
/// pause. The price is that servers save stream volumes (module-stream-restore, WirePlumber's
/// state), so the fade is handled like a duck of our own stream: every volume it may set is
/// journaled before the first is set, the listener's volume is put back after the pause (while
/// the stream is corked, so the jump is never heard), the saved entry is repaired, and a crash
/// mid-fade is repaired at the next start from the journal. A volume the listener sets during
/// the fade wins: the fade stops there.
///
/// ```swift
/// policy.setNarrationFade(0.5)   // half of the listener's volume (PulseAudio's cubic scale: -18 dB)
/// policy.setNarrationFade(nil)   // the listener's volume back, exactly
/// ```
extension AudioPolicyDriver {
    /// Volume steps of a fade: each set volume is one of these fractions of the listener's.
    static let sleepFadeSteps = 80

    func setNarrationFade(_ fraction: Double?) {
        guard let fraction else { return endNarrationFade() }
        if sleepFade == nil {
            guard let index = narrator.streamIndex, let stream = mirror.snapshot.playbacks[index] else {
                Journal.log(.info, "sleep timer: the narration stream is not known to the sound server yet; no fade")
                return
            }
            var entry = DuckEntry(stream: stream, level: 0)
            entry.volumesSet = (0...Self.sleepFadeSteps).map { stream.volume.scaled(by: Double($0) / Double(Self.sleepFadeSteps)) }
            sleepFade = entry
            saveDuckJournal()   // on disk before the first step
            Journal.log(.info, "sleep timer: fading narration out from \(stream.volume)")
        }
        guard let entry = sleepFade, entry.stream == narrator.streamIndex else { return endNarrationFade() }
        if let current = mirror.snapshot.playbacks[entry.stream]?.volume, !entry.isOurs(current), current != entry.original {
            Journal.log(.info, "sleep timer: the narration volume was changed by hand (\(current)); fade stopped there")
            sleepFade = nil
            saveDuckJournal()
            return
        }
        let step = (min(1, max(0, fraction)) * Double(Self.sleepFadeSteps)).rounded()
        mirror.setPlaybackVolume(entry.stream, entry.original.scaled(by: step / Double(Self.sleepFadeSteps)))
    }

    /// The listener's volume back (unless they changed it meanwhile), and the saved one repaired.
    private func endNarrationFade() {
        guard let entry = sleepFade else { return }
        sleepFade = nil
        if let current = mirror.snapshot.playbacks[entry.stream]?.volume, entry.isOurs(current) {
            mirror.setPlaybackVolume(entry.stream, entry.original)
        }
        repairSavedVolumes(DuckJournal(entries: [entry])) { [weak self] in self?.saveDuckJournal() }
    }
}
