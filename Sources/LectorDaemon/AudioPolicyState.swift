import LectorAudio
import LectorLoop
import LectorPolicy
import LectorState

/// Everything the audio policy remembers between sound-server events (issue 4): the mirror of
/// the server, the call tracker, the duck book and its ramps, the sink raised for an
/// `ensure-audible` announcement, and why narration is paused.
///
/// Owned by the event loop thread, as part of `LectorService`'s one context.
@MainActor
final class AudioPolicyState {
    let mirror = SoundServerMirror()
    var interruptions = InterruptionTracker()
    var duckPolicy = DuckPolicy()
    var duckBook = DuckBook()
    /// Volumes still to set, per stream: one step per ramp tick.
    var ramps: [UInt32: [ChannelVolumes]] = [:]
    /// Ducked streams whose saved (stream-restore) volume was already put back.
    var savedRepaired: Set<UInt32> = []
    var rampTimer: EventSource!
    /// Restores a moment after the last announcement, so back-to-back ones keep one duck.
    var releaseTimer: EventSource!
    var rampSteps = 3
    var rampStepMicroseconds: UInt64 = 10_000
    /// `ensure-audible` raises a sink whose loudest channel is below this fraction of 100 %.
    var volumeFloor = 0.2
    /// The sink raised or unmuted for the current announcements, restored when they end.
    var raise: SinkRaise?
    let journal = DuckJournalStore(directory: DuckJournalStore.defaultDirectory())
    /// A journal left by an earlier run, being repaired: kept in the file until that is done.
    var recovering: DuckJournal?
    /// Repairs saved volumes named by `recovering`, a moment after connecting (and retries).
    var repairTimer: EventSource!
    var repairAttempt = 1
    /// Why narration is paused (Narrator1.PausedBecause); nil while playing or when the user paused.
    var pauseReason: String?
    /// The sink narration was on when a "stream-moved" pause happened.
    var movedFromSink: UInt32?
    /// The PausedBecause value clients last saw, so a change is emitted exactly once.
    var announcedPausedBecause = ""

    /// Teardown: no timer fires after this.
    func close() {
        for timer in [rampTimer, releaseTimer, repairTimer] { timer?.close() }
    }
}
