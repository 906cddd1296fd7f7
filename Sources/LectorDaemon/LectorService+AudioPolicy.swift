import LectorAudio
import LectorCore
import LectorPolicy

/// Issue 4: pause when the route changes, pause for calls, duck other apps while announcing
/// and restore them exactly. Every decision is a pure function in LectorPolicy; this file only
/// feeds it the mirror's snapshots and carries out what it says.
extension LectorService {
    func setUpAudioPolicy() throws {
        policy.rampTimer = try loop.timer { [weak self] in self?.stepRamps() }
        policy.releaseTimer = try loop.timer { [weak self] in
            guard let self else { return }
            guard self.current == nil else { return }
            self.releaseDuck()
            self.narrator.release()
        }
        policy.mirror.onChange = { [weak self] before, change in self?.audioChanged(from: before, change) }
        policy.repairTimer = try loop.timer { [weak self] in
            guard let self else { return }
            self.repairRecoveredSavedVolumes(attempt: self.policy.repairAttempt)
        }
    }

    /// Our streams, never ducked, never counted as calls.
    var ownStreams: Set<UInt32> { Set([stream?.serverIndex, narrator.stream?.serverIndex].compactMap { $0 }) }

    // MARK: - events

    func audioChanged(from before: AudioSnapshot, _ change: SoundServerMirror.Change) {
        let after = policy.mirror.snapshot
        if change == .synced { recoverFromJournal() }

        if narrator.state.status == .playing, let own = narrator.stream?.serverIndex,
           let loss = RouteClassifier.loss(ofStream: own, before: before, after: after),
           !Self.isMoveOfCorkedStream(loss, own, before) {
            Journal.log(.notice, "pausing narration: \(loss.logDescription)",
                        fields: narrationFields(["LECTOR_PAUSE_REASON": loss.pausedBecause]))
            pauseNarration(because: loss.pausedBecause)
            policy.interruptions.userActed()   // a route loss is never undone by a call ending
            if case .streamMoved = loss { policy.movedFromSink = before.playbacks[own]?.device }
        }
        // The server may move our stream off a sink before it says the sink is gone: then the
        // sink's removal is the real reason.
        if case .sinkRemoved(let sink) = change, sink == policy.movedFromSink,
           narrator.state.status == .paused, policy.pauseReason == "stream-moved" {
            policy.pauseReason = "device-removed"
            pausedBecauseMayHaveChanged()
        }

        let calls = InterruptionTracker.callSources(in: after, excluding: ownStreams)
        apply(policy.interruptions.reconcile(with: calls, at: loop.now,
                                             narrationPlaying: narrator.state.status == .playing))

        // PipeWire parks a stream whose only sink went away (PulseAudio kills it): nobody hears
        // the speech in flight, so it fails as it does on PulseAudio.
        if case .playback(let index) = change, index == stream?.serverIndex, current != nil,
           let own = after.playbacks[index], after.sinks[own.device] == nil {
            Journal.log(.warning, "the announcement stream has no sink left: the speech in flight fails",
                        fields: ["LECTOR_ERROR": "SoundServerUnavailable"])
            endCurrent(.failed)
            startNext()
        }

        switch change {
        case .playback(let index):
            guard policy.duckBook.isDucking, let stream = after.playbacks[index] else { break }
            if let entry = policy.duckBook.entries[index] {
                switch policy.duckBook.observe(stream) {
                case .changedByUser:
                    policy.ramps[index] = nil
                    Journal.log(.info, "stream \(index) (\(stream.applicationName ?? "?")) changed by the user while ducked: left as it is")
                    saveDuckJournal()
                case .ours where stream.volume == entry.target && !policy.savedRepaired.contains(index):
                    // The server has filed the ducked volume by now (its own subscribers hear of
                    // a change before clients do): put the saved one back.
                    policy.savedRepaired.insert(index)
                    repairSavedVolumes(policy.duckBook.journal())
                default:
                    break
                }
            } else if let sink = announcementSink, policy.duckPolicy.shouldDuck(stream, onSink: sink, ownStreams: ownStreams) {
                duck(stream)
            }
        case .playbackRemoved(let index):
            policy.duckBook.streamRemoved(index)
            policy.ramps[index] = nil
        default:
            break
        }
    }

    /// A stream that was corked when the server moved it was not audible anywhere: that move is
    /// no route loss, even if Play arrived just before the event (as after
    /// `pactl set-default-sink X; playerctl play`).
    private static func isMoveOfCorkedStream(_ loss: RouteLoss, _ own: UInt32, _ before: AudioSnapshot) -> Bool {
        guard case .streamMoved = loss else { return false }
        return before.playbacks[own]?.corked ?? false
    }

    /// Journal fields naming the book and chapter being narrated, plus `extra`.
    func narrationFields(_ extra: [String: String]) -> [String: String] {
        guard let book = narrator.book else { return extra }
        return extra.merging(["LECTOR_BOOK": book.url.path, "LECTOR_CHAPTER": String(narrator.state.chapter + 1)]) { a, _ in a }
    }

    /// The narration stream was asked to cork (module-role-cork: a call started) or uncork.
    func corkRequested(_ cork: Bool) {
        let narrating = narrator.state.status == .playing
        apply(cork ? policy.interruptions.began(.corkRequest, at: loop.now, narrationPlaying: narrating)
                   : policy.interruptions.ended(.corkRequest, at: loop.now))
    }

    private func apply(_ action: InterruptionTracker.Action) {
        switch action {
        case .none:
            break
        case .pause:
            Journal.log(.notice, "pausing narration for a call", fields: narrationFields(["LECTOR_PAUSE_REASON": "call"]))
            pauseNarration(because: "call")
        case .resume:
            guard narrator.state.status == .paused, policy.pauseReason == "call" else { break }
            Journal.log(.notice, "the call ended: resuming narration")
            policy.pauseReason = nil
            narrator.play()
        }
        startNext()   // announcements held during the call may go now
    }

    // MARK: - pausing

    /// Pauses narration for a reason other than the listener (who pauses through MPRIS).
    func pauseNarration(because reason: String) {
        switch narrator.state.status {
        case .playing:
            policy.pauseReason = reason
            policy.movedFromSink = nil
            narrator.pause()
        case .paused, .stopped:
            break   // already quiet: the first reason stands
        }
    }

    /// The listener acted (MPRIS or Narrator1): no automatic resume after this.
    func listenerActed(pausing: Bool) {
        policy.interruptions.userActed()
        policy.pauseReason = pausing ? "user" : nil
        policy.movedFromSink = nil
        // Play: the status change announces PausedBecause "" (announcing now would say "user").
        if pausing { pausedBecauseMayHaveChanged() }
    }

    /// Emits PropertiesChanged for PausedBecause if it differs from what clients last saw.
    func pausedBecauseMayHaveChanged() {
        guard pausedBecause != policy.announcedPausedBecause else { return }
        policy.announcedPausedBecause = pausedBecause
        bus.emitPropertiesChanged(path: BusNames.objectPath, interface: MPRISNames.narrator, names: ["PausedBecause"])
    }

    /// While an announcement speaks, narration holds: PlaybackStatus stays Playing (no flicker
    /// for media controls) and PausedBecause says "announcement".
    var pausedBecause: String {
        switch narrator.state.status {
        case .paused: return policy.pauseReason ?? "user"
        case .playing: return narrator.isHeld ? "announcement" : ""
        case .stopped: return ""
        }
    }

    // MARK: - announcements

    /// May an announcement of this priority start now? Calls hold all but `important` ones.
    func mayStart(_ priority: SpeechPriority) -> Bool {
        !policy.interruptions.isInterrupted || priority == .important
    }

    /// The sink our announcement stream plays on.
    var announcementSink: UInt32? {
        guard let own = stream?.serverIndex else { return nil }
        return policy.mirror.snapshot.playbacks[own]?.device
    }

    /// Before an announcement starts: false if it must not (its sink is muted and it is not
    /// important). Raises or unmutes the sink for `ensure-audible` / `important`.
    func prepareAudibility(for request: SpeechRequest) -> Bool {
        guard let index = announcementSink, let sink = policy.mirror.snapshot.sinks[index] else { return true }
        if let raise = policy.raise, raise.sink == index { return true }   // already done for this run
        let floor = request.ensureAudible ? policy.volumeFloor : 0
        let plan = VolumeFloor.plan(for: sink, floor: floor, important: request.priority == .important)
        if plan == .muted { return false }
        guard let raise = SinkRaise(sink, plan: plan) else { return true }
        policy.raise = raise
        saveDuckJournal()   // on disk before the sink changes
        Journal.log(.info, "\(raise.unmuted ? "unmuting" : "raising") sink \(sink.name) for an announcement"
                    + (raise.raised.map { " (\(sink.volume) -> \($0))" } ?? ""))
        if let volume = raise.raised { policy.mirror.setSinkVolume(sink.index, volume) }
        if raise.unmuted { policy.mirror.setSinkMute(sink.index, false) }
        return true
    }

    /// After every change of `current`: duck when an announcement runs, restore (a moment
    /// later, unless another one starts) when none does.
    func updateDuck() {
        if current != nil {
            policy.releaseTimer.cancel()
            if !policy.duckBook.isDucking { beginDuck() }
        } else if policy.duckBook.isDucking || policy.raise != nil || narrator.isHeld {
            policy.releaseTimer.schedule(after: 0)
        }
    }

    private func beginDuck() {
        guard policy.mirror.isSynced, let sink = announcementSink else { return }
        let own = ownStreams
        for stream in policy.mirror.snapshot.playbacks.values.sorted(by: { $0.index < $1.index })
        where policy.duckPolicy.shouldDuck(stream, onSink: sink, ownStreams: own) {
            duck(stream)
        }
    }

    private func duck(_ stream: StreamSnapshot) {
        let steps = policy.duckBook.duck(stream, level: policy.duckPolicy.level, steps: policy.rampSteps)
        guard !steps.isEmpty else { return }
        // Every step is known as ours (change events lag behind) and journaled before the first is set.
        for volume in steps { policy.duckBook.willSet(volume, on: stream.index) }
        saveDuckJournal()
        Journal.log(.debug, "ducking stream \(stream.index) (\(stream.applicationName ?? "?")) \(stream.volume) -> \(steps.last!)")
        policy.ramps[stream.index] = steps
        stepRamps()
    }

    /// Sets the next volume of every ramp in progress.
    func stepRamps() {
        for (index, steps) in policy.ramps {
            guard let volume = steps.first else { continue }
            policy.mirror.setPlaybackVolume(index, volume) { ok in
                if !ok { Journal.log(.info, "stream \(index) went away while being ducked") }
            }
            if steps.count == 1 {
                policy.ramps[index] = nil
            } else {
                policy.ramps[index] = Array(steps.dropFirst())
            }
        }
        if !policy.ramps.isEmpty { policy.rampTimer.schedule(after: policy.rampStepMicroseconds) }
    }

    /// Ends the duck: every stream still at the volume we set gets its own back, exactly.
    func releaseDuck() {
        policy.ramps = [:]
        policy.rampTimer.cancel()
        let snapshot = policy.mirror.snapshot
        let journal = policy.duckBook.journal()   // before release() empties the book
        policy.savedRepaired = []
        for restore in policy.duckBook.release() {
            guard let current = snapshot.playbacks[restore.stream]?.volume else { continue }
            if DuckBook.shouldRestore(current: current, restore) {
                policy.mirror.setPlaybackVolume(restore.stream, restore.original)
            } else {
                Journal.log(.info, "stream \(restore.stream) was changed while ducked (\(current)): not restored")
            }
        }
        if let raise = policy.raise, let sink = snapshot.sinks[raise.sink] {
            for action in raise.undo(current: sink) { perform(action) }
        }
        policy.raise = nil
        // Streams that ended while ducked may have left the ducked volume in the saved entries.
        policy.recovering = policy.recovering.map { var merged = $0; merged.merge(journal); return merged } ?? journal
        repairSavedVolumes(journal) { [weak self] in
            guard let self else { return }
            self.policy.recovering = nil
            self.saveDuckJournal()
        }
        saveDuckJournal()
    }

    /// The server went away and took its streams with it; what we set may still be in its saved
    /// volumes, so the journal stays until the next connection has repaired them.
    func soundServerLost() {
        var journal = policy.duckBook.journal(raises: policy.raise.map { [$0] } ?? [])
        if let old = policy.recovering { journal.merge(old) }
        policy.recovering = journal.isEmpty ? nil : journal
        policy.duckBook = DuckBook()
        policy.ramps = [:]
        policy.raise = nil
        policy.mirror.detach()
        saveDuckJournal()
    }

    // MARK: - journal and saved volumes

    /// The journal holds what is ducked now plus what an earlier run left and is still being
    /// repaired; without either it is removed.
    func saveDuckJournal() {
        var journal = policy.duckBook.journal(raises: policy.raise.map { [$0] } ?? [])
        if let old = policy.recovering { journal.merge(old) }
        if journal.isEmpty {
            policy.journal.remove()
            return
        }
        do {
            try policy.journal.save(journal)
        } catch {
            Journal.log(.error, "could not write the duck journal \(policy.journal.file.path): \(error)")
        }
    }

    /// After a crash (or a sound server restart mid-duck): restore what is still ducked, repair
    /// saved volumes, then forget the old journal.
    private func recoverFromJournal() {
        let old: DuckJournal
        do {
            guard let loaded = try policy.journal.load() else { return }
            old = loaded
        } catch {
            Journal.log(.error, "unreadable duck journal \(policy.journal.file.path): \(error); left for inspection")
            return
        }
        // Entries of the current duck (if any) are in the book, not stale: only old ones recover.
        let stale = old.removing(streams: Set(policy.duckBook.entries.keys))
        guard !stale.isEmpty else { return }
        policy.recovering = stale
        policy.repairAttempt = 1
        let actions = stale.recovery(in: policy.mirror.snapshot)
        Journal.log(.notice, "restoring volumes left lowered by an earlier run: \(actions.count) to undo")
        for action in actions { perform(action) }
        // pipewire-pulse hands a new connection its saved entries a moment after connecting, and
        // drops writes made before that: repair a little later, then check it took.
        policy.repairTimer.schedule(after: Self.savedRepairDelay)
    }

    static let savedRepairDelay: UInt64 = 300_000

    /// Repairs the saved volumes the journal of an earlier run names; retries (three times)
    /// until a read shows every entry it wrote.
    func repairRecoveredSavedVolumes(attempt: Int = 1) {
        guard let stale = policy.recovering else { return }
        policy.mirror.readSavedStreams { [weak self] saved in
            guard let self else { return }
            let repairs = stale.savedEntryRepairs(saved: Self.savedVolumes(saved))
            let unlisted = Self.unlisted(stale, saved)
            let written = Set((repairs + unlisted).map(\.key))
            guard !written.isEmpty, attempt <= 3 else {
                self.policy.recovering = nil
                self.saveDuckJournal()
                return
            }
            self.writeRepairs(repairs, saved: saved, unlisted: unlisted)
            // Next round: a read that lists our entries at the original volume finds nothing to do.
            self.policy.repairAttempt = attempt + 1
            self.policy.repairTimer.schedule(after: Self.savedRepairDelay)
        }
    }

    private func perform(_ action: RecoveryAction) {
        switch action {
        case .setStreamVolume(let stream, let volume): policy.mirror.setPlaybackVolume(stream, volume)
        case .setSinkVolume(let sink, let volume): policy.mirror.setSinkVolume(sink, volume)
        case .setSinkMute(let sink, let muted): policy.mirror.setSinkMute(sink, muted)
        }
    }

    /// Saved entries holding a volume we set go back to the original.
    private func repairSavedVolumes(_ journal: DuckJournal, then done: (() -> Void)? = nil) {
        guard !journal.entries.isEmpty else { done?(); return }
        policy.mirror.readSavedStreams { [weak self] saved in
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
        policy.mirror.writeSavedStreams(entries) { ok in
            Journal.log(ok ? .debug : .warning, ok ? "repaired \(entries.count) saved stream volumes"
                                                   : "could not repair saved stream volumes")
        }
    }

    private static func savedVolumes(_ saved: [SavedStreamEntry]?) -> [String: ChannelVolumes] {
        Dictionary((saved ?? []).map { ($0.name, $0.volume) }, uniquingKeysWith: { first, _ in first })
    }
}
