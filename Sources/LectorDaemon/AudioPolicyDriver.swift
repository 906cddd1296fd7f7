import LectorAudio
import LectorCore
import LectorLoop
import LectorPolicy
import LectorState

/// Issue 4's audio policy, carried out: pause narration when the route changes, pause for calls
/// (and resume after), duck other apps while announcing and restore them exactly, repair saved
/// volumes, recover from a crash's journal. Every decision is a pure function in LectorPolicy;
/// this only feeds it the mirror's snapshots and carries out what it says.
///
/// ```swift
/// let policy = try AudioPolicyDriver(loop: loop, narrator: narrator, announcer: announcer)
/// soundServer.attach(policy.mirror)
/// policy.updateDuck()   // after every change of the announcement being spoken
/// ```
@MainActor
final class AudioPolicyDriver {
    let loop: any LoopScheduling
    let narrator: any NarrationControl
    let announcer: any AnnouncementControl
    /// The sound server's picture and the writes the policy makes.
    let mirror: any SoundServerMirroring
    /// PausedBecause changed: announce it on the bus.
    var onPausedBecauseChanged: (() -> Void)?

    var interruptions = InterruptionTracker()
    /// Whether the last action found a call on: its start and end are logged once each.
    private var callLogged = false
    var duckPolicy = DuckPolicy()
    var duckBook = DuckBook()
    /// Volumes still to set, per stream: one step per ramp tick.
    var ramps: [UInt32: [ChannelVolumes]] = [:]
    /// Ducked streams whose saved (stream-restore) volume was already put back.
    var savedRepaired: Set<UInt32> = []
    private var rampTimer: (any LoopTimer)?
    /// Restores a moment after the last announcement, so back-to-back ones keep one duck.
    private var releaseTimer: (any LoopTimer)?
    var rampSteps = 3
    var rampStepMicroseconds: UInt64 = 10_000
    /// `ensure-audible` raises a sink whose loudest channel is below this fraction of 100 %.
    var volumeFloor = 0.2
    /// The sink raised or unmuted for the current announcements, restored when they end.
    var raise: SinkRaise?
    let journalStore: DuckJournalStore
    /// A journal left by an earlier run, being repaired: kept in the file until that is done.
    var recovering: DuckJournal?
    /// Repairs saved volumes named by `recovering`, a moment after connecting (and retries).
    private var repairTimer: (any LoopTimer)?
    var repairAttempt = 1
    /// Why narration is paused (Narrator1.PausedBecause); nil while playing or when the user paused.
    var pauseReason: String?
    /// Our narration stream's route, from one snapshot to the next.
    var routeWatch = RouteWatch()
    /// The name of the sink narration was on when a "stream-moved" pause happened.
    var movedFromSink: String?
    /// The PausedBecause value clients last saw, so a change is emitted exactly once.
    var announcedPausedBecause = ""
    /// The sleep timer's fade of our own narration stream (AudioPolicyDriver+SleepFade), in the
    /// duck journal while it lasts so a crash mid-fade cannot leave a faded saved volume.
    var sleepFade: DuckEntry?
    /// The listener acted (MPRIS, Narrator1): the sleep timer cancels its fade.
    var onListenerActed: (() -> Void)?


    init(loop: any LoopScheduling, mirror: any SoundServerMirroring, narrator: any NarrationControl,
         announcer: any AnnouncementControl,
         journal: DuckJournalStore = DuckJournalStore(directory: DuckJournalStore.defaultDirectory())) throws {
        self.loop = loop
        self.mirror = mirror
        self.narrator = narrator
        self.announcer = announcer
        journalStore = journal
        rampTimer = try loop.makeTimer { [weak self] in self?.stepRamps() }
        releaseTimer = try loop.makeTimer { [weak self] in
            guard let self, !self.announcer.isSpeaking else { return }
            self.releaseDuck()
            self.narrator.release()
        }
        mirror.onChange = { [weak self] before, change in self?.audioChanged(from: before, change) }
        repairTimer = try loop.makeTimer { [weak self] in
            guard let self else { return }
            self.repairRecoveredSavedVolumes(attempt: self.repairAttempt)
        }
    }

    /// Teardown: no timer fires after this.
    func close() {
        for timer in [rampTimer, releaseTimer, repairTimer] { timer?.close() }
    }

    /// Our streams, never ducked, never counted as calls.
    var ownStreams: Set<UInt32> { Set([announcer.streamIndex, narrator.streamIndex].compactMap { $0 }) }

    // MARK: - events

    func audioChanged(from before: AudioSnapshot, _ change: SoundServerMirror.Change) {
        let after = mirror.snapshot
        if change == .synced { recoverFromJournal() }

        let loss = narrator.streamIndex.flatMap { routeWatch.loss(ofStream: $0, before: before, after: after) }
        if narrator.status == .playing, let loss {
            Journal.log(.notice, "pausing narration: \(loss.logDescription)",
                        fields: narrationFields(["LECTOR_PAUSE_REASON": loss.pausedBecause]))
            pauseNarration(because: loss.pausedBecause)
            interruptions.userActed()   // a route loss is never undone by a call ending
            if case .streamMoved(let from, _) = loss { movedFromSink = from }
        }
        // The server may move our stream off a sink before it says the sink is gone: then the
        // sink's removal is the real reason.
        if case .sinkRemoved(let sink) = change, let name = before.sinks[sink]?.name, name == movedFromSink,
           narrator.status == .paused, pauseReason == "stream-moved" {
            pauseReason = "device-removed"
            pausedBecauseMayHaveChanged()
        }

        let calls = InterruptionTracker.callSources(in: after, excluding: ownStreams)
        apply(interruptions.reconcile(with: calls, at: loop.now,
                                             narrationPlaying: narrator.status == .playing))

        // PipeWire parks a stream whose only sink went away (PulseAudio kills it): nobody hears
        // the speech in flight, so it fails as it does on PulseAudio.
        if case .playback(let index) = change, index == announcer.streamIndex, announcer.isSpeaking,
           let own = after.playbacks[index], after.sinks[own.device] == nil {
            Journal.log(.warning, "the announcement stream has no sink left: the speech in flight fails",
                        fields: ["LECTOR_ERROR": "SoundServerUnavailable"])
            announcer.endCurrent(.failed)
            announcer.startNext()
        }

        switch change {
        case .playback(let index):
            // While an announcement speaks (even if nothing was playing when it began).
            guard duckBook.isDucking || announcer.isSpeaking, let stream = after.playbacks[index] else { break }
            if let entry = duckBook.entries[index] {
                switch duckBook.observe(stream) {
                case .changedByUser:
                    ramps[index] = nil
                    Journal.log(.info, "stream \(index) (\(stream.applicationName ?? "?")) changed by the user while ducked: left as it is")
                    saveDuckJournal()
                case .ours where stream.volume == entry.target && !savedRepaired.contains(index):
                    // The server has filed the ducked volume by now (its own subscribers hear of
                    // a change before clients do): put the saved one back.
                    savedRepaired.insert(index)
                    repairSavedVolumes(duckBook.journal())
                default:
                    break
                }
            } else if let sink = announcementSink, duckPolicy.shouldDuck(stream, onSink: sink, ownStreams: ownStreams) {
                duck(stream)
            }
        case .playbackRemoved(let index):
            duckBook.streamRemoved(index)
            ramps[index] = nil
        default:
            break
        }
    }

    /// Journal fields naming the book and chapter being narrated, plus `extra`.
    func narrationFields(_ extra: [String: String]) -> [String: String] {
        guard let place = narrator.place else { return extra }
        return extra.merging(["LECTOR_BOOK": place.bookPath, "LECTOR_CHAPTER": String(place.chapter + 1)]) { a, _ in a }
    }

    /// The narration stream was asked to cork (module-role-cork: a call started) or uncork.
    func corkRequested(_ cork: Bool) {
        let narrating = narrator.status == .playing
        apply(cork ? interruptions.began(.corkRequest, at: loop.now, narrationPlaying: narrating)
                   : interruptions.ended(.corkRequest, at: loop.now))
    }

    private func apply(_ action: InterruptionTracker.Action) {
        switch action {
        case .none:
            break
        case .pause:
            Journal.log(.notice, "pausing narration for a call", fields: narrationFields(["LECTOR_PAUSE_REASON": "call"]))
            pauseNarration(because: "call")
        case .resume:
            guard narrator.status == .paused, pauseReason == "call" else { break }
            Journal.log(.notice, "the call ended: resuming narration")
            pauseReason = nil
            narrator.play()
        }
        if interruptions.isInterrupted != callLogged {
            callLogged = interruptions.isInterrupted
            Journal.log(.info, callLogged ? "a call is on: announcements below important wait for it" : "no call any more")
        }
        announcer.startNext()   // announcements held during the call may go now
    }

    // MARK: - pausing

    /// Pauses narration for a reason other than the listener (who pauses through MPRIS).
    func pauseNarration(because reason: String) {
        switch narrator.status {
        case .playing:
            pauseReason = reason
            movedFromSink = nil
            narrator.pause()
        case .paused, .stopped:
            break   // already quiet: the first reason stands
        }
    }

    /// Narration went from paused or stopped to playing.
    func narrationStarted() {
        routeWatch.playStarted()
    }

    /// The listener acted (MPRIS or Narrator1): no automatic resume after this.
    func listenerActed(pausing: Bool) {
        onListenerActed?()
        interruptions.userActed()
        pauseReason = pausing ? "user" : nil
        movedFromSink = nil
        // Play: the status change announces PausedBecause "" (announcing now would say "user").
        if pausing { pausedBecauseMayHaveChanged() }
    }

    /// Emits PropertiesChanged for PausedBecause if it differs from what clients last saw.
    func pausedBecauseMayHaveChanged() {
        if pausedBecauseNeedsAnnouncing() { onPausedBecauseChanged?() }
    }

    /// True (once) when PausedBecause differs from what clients last saw: the caller announces it.
    func pausedBecauseNeedsAnnouncing() -> Bool {
        guard pausedBecause != announcedPausedBecause else { return false }
        announcedPausedBecause = pausedBecause
        return true
    }

    /// While an announcement speaks, narration holds: PlaybackStatus stays Playing (no flicker
    /// for media controls) and PausedBecause says "announcement".
    var pausedBecause: String {
        switch narrator.status {
        case .paused: return pauseReason ?? "user"
        case .playing: return narrator.isHeld ? "announcement" : ""
        case .stopped: return ""
        }
    }

    // MARK: - announcements

    /// May an announcement of this priority start now? Calls hold all but `important` ones.
    func mayStart(_ priority: SpeechPriority) -> Bool {
        !interruptions.isInterrupted || priority == .important
    }

    /// The sink our announcement stream plays on.
    var announcementSink: UInt32? {
        guard let own = announcer.streamIndex else { return nil }
        return mirror.snapshot.playbacks[own]?.device
    }

    /// Before an announcement starts: false if it must not (its sink is muted and it is not
    /// important). Raises or unmutes the sink for `ensure-audible` / `important`.
    func prepareAudibility(for request: SpeechRequest) -> Bool {
        guard let index = announcementSink, let sink = mirror.snapshot.sinks[index] else { return true }
        if let raise = raise, raise.sink == index { return true }   // already done for this run
        let floor = request.ensureAudible ? volumeFloor : 0
        let plan = VolumeFloor.plan(for: sink, floor: floor, important: request.priority == .important)
        if plan == .muted { return false }
        guard let raise = SinkRaise(sink, plan: plan) else { return true }
        self.raise = raise
        saveDuckJournal()   // on disk before the sink changes
        Journal.log(.info, "\(raise.unmuted ? "unmuting" : "raising") sink \(sink.name) for an announcement"
                    + (raise.raised.map { " (\(sink.volume) -> \($0))" } ?? ""))
        if let volume = raise.raised { mirror.setSinkVolume(sink.index, volume) }
        if raise.unmuted { mirror.setSinkMute(sink.index, false) }
        return true
    }

    /// After every change of `current`: duck when an announcement runs, restore (a moment
    /// later, unless another one starts) when none does.
    func updateDuck() {
        if announcer.isSpeaking {
            releaseTimer?.cancel()
            if !duckBook.isDucking { beginDuck() }
        } else if duckBook.isDucking || raise != nil || narrator.isHeld {
            releaseTimer?.schedule(after: 0)
        }
    }

    private func beginDuck() {
        guard mirror.isSynced, let sink = announcementSink else { return }
        let own = ownStreams
        for stream in mirror.snapshot.playbacks.values.sorted(by: { $0.index < $1.index })
        where duckPolicy.shouldDuck(stream, onSink: sink, ownStreams: own) {
            duck(stream)
        }
    }

    private func duck(_ stream: StreamSnapshot) {
        let steps = duckBook.duck(stream, level: duckPolicy.level, steps: rampSteps)
        guard !steps.isEmpty else { return }
        // Every step is known as ours (change events lag behind) and journaled before the first is set.
        for volume in steps { duckBook.willSet(volume, on: stream.index) }
        saveDuckJournal()
        Journal.log(.debug, "ducking stream \(stream.index) (\(stream.applicationName ?? "?")) \(stream.volume) -> \(steps.last!)")
        ramps[stream.index] = steps
        stepRamps()
    }

    /// Sets the next volume of every ramp in progress.
    func stepRamps() {
        for (index, steps) in ramps {
            guard let volume = steps.first else { continue }
            mirror.setPlaybackVolume(index, volume) { ok in
                if !ok { Journal.log(.info, "stream \(index) went away while being ducked") }
            }
            if steps.count == 1 {
                ramps[index] = nil
            } else {
                ramps[index] = Array(steps.dropFirst())
            }
        }
        if !ramps.isEmpty { rampTimer?.schedule(after: rampStepMicroseconds) }
    }

    /// Ends the duck: every stream still at the volume we set gets its own back, exactly.
    func releaseDuck() {
        ramps = [:]
        rampTimer?.cancel()
        let snapshot = mirror.snapshot
        let journal = duckBook.journal()   // before release() empties the book
        savedRepaired = []
        for restore in duckBook.release() {
            guard let current = snapshot.playbacks[restore.stream]?.volume else { continue }
            if DuckBook.shouldRestore(current: current, restore) {
                mirror.setPlaybackVolume(restore.stream, restore.original)
            } else {
                Journal.log(.info, "stream \(restore.stream) was changed while ducked (\(current)): not restored")
            }
        }
        if let raise = raise, let sink = snapshot.sinks[raise.sink] {
            for action in raise.undo(current: sink) { perform(action) }
        }
        raise = nil
        // Streams that ended while ducked may have left the ducked volume in the saved entries.
        recovering = recovering.map { var merged = $0; merged.merge(journal); return merged } ?? journal
        repairSavedVolumes(journal) { [weak self] in
            guard let self else { return }
            self.recovering = nil
            self.saveDuckJournal()
        }
        saveDuckJournal()
    }

    /// The server went away and took its streams with it; what we set may still be in its saved
    /// volumes, so the journal stays until the next connection has repaired them.
    func soundServerLost() {
        var journal = duckBook.journal(raises: raise.map { [$0] } ?? [])
        if let old = recovering { journal.merge(old) }
        recovering = journal.isEmpty ? nil : journal
        duckBook = DuckBook()
        ramps = [:]
        raise = nil
        mirror.detach()
        saveDuckJournal()
    }

    // MARK: - journal and saved volumes

    /// The journal holds what is ducked now plus what an earlier run left and is still being
    /// repaired; without either it is removed.
    func saveDuckJournal() {
        var journal = duckBook.journal(raises: raise.map { [$0] } ?? [])
        if let sleepFade { journal.entries.append(sleepFade) }
        if let old = recovering { journal.merge(old) }
        if journal.isEmpty {
            journalStore.remove()
            return
        }
        do {
            try journalStore.save(journal)
        } catch {
            Journal.log(.error, "could not write the duck journal \(journalStore.file.path): \(error)")
        }
    }

    /// After a crash (or a sound server restart mid-duck): restore what is still ducked, repair
    /// saved volumes, then forget the old journal.
    private func recoverFromJournal() {
        let old: DuckJournal
        do {
            guard let loaded = try journalStore.load() else { return }
            old = loaded
        } catch {
            Journal.log(.error, "unreadable duck journal \(journalStore.file.path): \(error); left for inspection")
            return
        }
        // Entries of the current duck (if any) are in the book, not stale: only old ones recover.
        let stale = old.removing(streams: Set(duckBook.entries.keys))
        guard !stale.isEmpty else { return }
        recovering = stale
        repairAttempt = 1
        let actions = stale.recovery(in: mirror.snapshot)
        Journal.log(.notice, "restoring volumes left lowered by an earlier run: \(actions.count) to undo")
        for action in actions { perform(action) }
        // pipewire-pulse hands a new connection its saved entries a moment after connecting, and
        // drops writes made before that: repair a little later, then check it took.
        repairTimer?.schedule(after: Self.savedRepairDelay)
    }

    static let savedRepairDelay: UInt64 = 300_000

    /// Repairs the saved volumes the journal of an earlier run names; retries (three times)
    /// until a read shows every entry it wrote.
    func repairRecoveredSavedVolumes(attempt: Int = 1) {
        guard let stale = recovering else { return }
        mirror.readSavedStreams { [weak self] saved in
            guard let self else { return }
            let repairs = stale.savedEntryRepairs(saved: Self.savedVolumes(saved))
            let unlisted = Self.unlisted(stale, saved)
            let written = Set((repairs + unlisted).map(\.key))
            guard !written.isEmpty, attempt <= 3 else {
                self.recovering = nil
                self.saveDuckJournal()
                return
            }
            self.writeRepairs(repairs, saved: saved, unlisted: unlisted)
            // Next round: a read that lists our entries at the original volume finds nothing to do.
            self.repairAttempt = attempt + 1
            self.repairTimer?.schedule(after: Self.savedRepairDelay)
        }
    }

    private func perform(_ action: RecoveryAction) {
        switch action {
        case .setStreamVolume(let stream, let volume): mirror.setPlaybackVolume(stream, volume)
        case .setSinkVolume(let sink, let volume): mirror.setSinkVolume(sink, volume)
        case .setSinkMute(let sink, let muted): mirror.setSinkMute(sink, muted)
        }
    }

    /// Saved entries holding a volume we set go back to the original.
    func repairSavedVolumes(_ journal: DuckJournal, then done: (() -> Void)? = nil) {
        guard !journal.entries.isEmpty else { done?(); return }
        mirror.readSavedStreams { [weak self] saved in
            guard let self else { return }
            self.writeRepairs(journal.savedEntryRepairs(saved: Self.savedVolumes(saved)), saved: saved)
            done?()
        }
    }

    /// Keys of ducked streams the server does not list at all. WirePlumber saves every stream
    /// volume in its own state, which pipewire-pulse does not list; writing the original through
    /// the extension reaches it. (On PulseAudio an unlisted key simply gets its original volume.)
    private static func unlisted(_ journal: DuckJournal, _ saved: [SavedStreamEntry]?) -> [SavedEntryRepair] {
        guard let saved else { return [] }
        let listed = Set(saved.map(\.name))
        var seen = Set<String>()
        return journal.entries.compactMap { entry in
            guard let key = entry.restoreKey, !listed.contains(key), seen.insert(key).inserted else { return nil }
            return SavedEntryRepair(key: key, volume: entry.original)
        }
    }

    private func writeRepairs(_ repairs: [SavedEntryRepair], saved: [SavedStreamEntry]?,
                              unlisted: [SavedEntryRepair] = []) {
        guard let saved, !repairs.isEmpty || !unlisted.isEmpty else { return }
        var entries: [SavedStreamEntry] = []
        for repair in repairs {
            guard var entry = saved.first(where: { $0.name == repair.key }) else { continue }
            entry.volume = repair.volume
            entries.append(entry)
        }
        entries += unlisted.map { SavedStreamEntry(name: $0.key, volume: $0.volume) }
        mirror.writeSavedStreams(entries) { ok in
            Journal.log(ok ? .debug : .warning, ok ? "repaired \(entries.count) saved stream volumes"
                                                   : "could not repair saved stream volumes")
        }
    }

    private static func savedVolumes(_ saved: [SavedStreamEntry]?) -> [String: ChannelVolumes] {
        Dictionary((saved ?? []).map { ($0.name, $0.volume) }, uniquingKeysWith: { first, _ in first })
    }
}

/// What the audio policy needs of narration: whether it plays, its stream, and pause/play.
@MainActor
protocol NarrationControl: AnyObject {
    var status: PlayerState.Status { get }
    /// An announcement holds it (PlaybackStatus stays Playing).
    var isHeld: Bool { get }
    /// Our narration stream's index on the sound server.
    var streamIndex: UInt32? { get }
    /// The book and chapter being read, for the journal.
    var place: (bookPath: String, chapter: Int)? { get }
    func pause()
    func play()
    /// The announcements are over: go on from the held word.
    func release()
}

/// What the audio policy needs of announcements: whether one speaks, its stream, and stop/next.
@MainActor
protocol AnnouncementControl: AnyObject {
    var isSpeaking: Bool { get }
    var streamIndex: UInt32? { get }
    func endCurrent(_ reason: FinishReason)
    func startNext()
}

extension Narrator: NarrationControl {
    var status: PlayerState.Status { state.status }
    var streamIndex: UInt32? { stream?.serverIndex }
    var place: (bookPath: String, chapter: Int)? { book.map { ($0.url.path, state.chapter) } }
}

extension Announcer: AnnouncementControl {
    var isSpeaking: Bool { current != nil }
    var streamIndex: UInt32? { stream?.serverIndex }
}
