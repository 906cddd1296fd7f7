import LectorBus
import LectorCore

/// Every connection between the daemon's components, in one place and one style.
///
/// A component is given what it commands as a small protocol it declares itself, at its `init`
/// (`NarrationControl` and `AnnouncementControl` for the audio policy, `BookNarration` for the
/// library, `SleepTimerNarration` for the sleep timer), so that it is tested with a fake. It tells
/// what happened through its `on…` closures, and those are set here, and only here, each capturing
/// this context weakly: a component never holds the context, and none outlives teardown.
///
/// To add a component: make it in `init` with `startup.add` beside it (teardown is start-up
/// reversed), then connect its events below.
extension LectorService {
    func wireComponents() throws {
        // Losing the bus ends the daemon through the same teardown as a signal (not through
        // sd_bus_set_exit_on_disconnect, which would end the loop before anything is saved).
        try bus.onDisconnected { [weak self] in
            MainActor.assumeIsolated { self?.requestExit(.busLost) }
        }
        soundServer.onStateChange = { [weak self] state in self?.soundServerChanged(state) }
        // A Pause's cork (a Play's uncork) reaches the server before the handler's signals and
        // reply are sent: silence comes that much sooner (docs/benchmarks.md, issue 23).
        bus.beforeAnswering = { [weak self] in self?.soundServer.sendWaitingRequests() }
        narrationVoices.onProblem = { [weak self] voice, message in self?.neuralVoiceProblem(voice: voice, message: message) }
        notifications.onChanged = { [weak self] names in
            self?.bus.emitPropertiesChanged(path: BusNames.objectPath, interface: BusNames.interface, names: names)
        }

        // Announcements: the audio policy decides whether one may start and ducks around it;
        // narration yields to it.
        announcer.onHeard = { [weak self] event in self?.announcementHeard(event) }
        announcer.mayStart = { [weak self] priority in self?.audioPolicy.mayStart(priority) ?? false }
        announcer.prepareAudibility = { [weak self] request in self?.audioPolicy.prepareAudibility(for: request) ?? false }
        announcer.willSpeak = { [weak self] in self?.narrator.hold() }
        announcer.onSpeakingChanged = { [weak self] in self?.audioPolicy.updateDuck() }
        announcer.onStreamFailed = { [weak self] in self?.scheduleStreamRetry() }

        // Narration: MPRIS and Narrator1 hear of every change; the library keeps the bookmark.
        narrator.onStateChange = { [weak self] before in
            guard let self else { return }
            if before.status != .playing, self.narrator.status == .playing { self.audioPolicy.narrationStarted() }
            self.narratorChanged(from: before)
            self.library.playbackChanged(from: before, to: self.narrator.state)
            self.dailyLoopStateChanged(from: before)
        }
        narrator.onHoldChange = { [weak self] in self?.audioPolicy.pausedBecauseMayHaveChanged() }
        narrator.onSeeked = { [weak self] position in
            self?.emitSignal(MPRISNames.path, MPRISNames.player, "Seeked") { try $0.append(position) }
        }
        narrator.onSpeakingRange = { [weak self] (track: String, start: Int, length: Int) in
            self?.emitSignal(BusNames.objectPath, MPRISNames.narrator, "SpeakingRange") {
                try $0.appendObjectPath(track)
                try $0.append(UInt32(start))
                try $0.append(UInt32(length))
            }
        }
        narrator.onBookmark = { [weak self] in self?.library.saveBookmark() }
        narrator.onNeedsStream = { [weak self] in self?.openNarrationStreamIfWanted() }
        narrator.onChapterNeeded = { [weak self] chapter in self?.library.loadChapter(chapter) }
        narrator.onChapterHeardToEnd = { [weak self] in self?.sleepTimer.chapterEnded() }
        narrator.willResume = { [weak self] in self?.rewindIfDue() }

        // Books: a new book or voice changes the track list, the voices offered and the
        // pronunciation check; a long pause since it was last heard rewinds a little.
        library.onBookApplied = { [weak self] in
            self?.failChapterTextWaiters(LectorError(.superseded, "another book was opened before the chapter was read"))
            self?.announceTrackListReplaced()
            self?.checkPronunciation()
        }
        library.onVoiceChanged = { [weak self] in
            self?.checkPronunciation()
            self?.announceVoices()   // Narrator1.Voice set, or the book being read opened again with another voice
        }
        library.onChapterLoaded = { [weak self] chapter in
            self?.chapterLoaded(chapter)
            if self?.pronunciationNeedsText == true { self?.checkPronunciation() }
        }
        library.onOpened = { [weak self] lastHeard, playing in
            guard let self else { return }
            // The book's own voice (or its language's): Narrator1.Voice, and the voices offered for it.
            self.announceVoices()
            if self.resumeRewind.bookOpened(lastHeard: lastHeard, playing: playing) { self.rewind() }
        }

        // The audio policy and the sleep timer.
        audioPolicy.onPausedBecauseChanged = { [weak self] in
            self?.bus.emitPropertiesChanged(path: BusNames.objectPath, interface: MPRISNames.narrator, names: ["PausedBecause"])
        }
        audioPolicy.onListenerActed = { [weak self] in self?.sleepTimer.listenerActed() }
        sleepTimer.onFade = { [weak self] fraction in self?.audioPolicy.setNarrationFade(fraction) }
        sleepTimer.onExpired = { [weak self] in self?.sleepTimerExpired() }
        sleepTimer.onChanged = { [weak self] in
            self?.bus.emitPropertiesChanged(path: BusNames.objectPath, interface: MPRISNames.narrator, names: ["SleepTimer"])
        }
    }
}
