import LectorBus
import LectorCore

/// Narrator1's members for the listener's daily loop (issue 13): the library, per-book voice,
/// and, in their own files, the sleep timer and skips. Documented in
/// dbus/io.github.lector.Narrator1.xml, which IntrospectionTests compares to what is served.
extension LectorService {
    func dailyLoopMembers() -> [BusMember<LectorService>] {
        sleepTimerMembers() + skipMembers() + [
            .method("GetLibrary", out: "aa{sv}as", ["books", "problems"]) { service, call in
                service.library.listBooks(reply: call.deferReply())
                return .answered
            },
            .method("ForgetBook", in: "s", ["book"], out: "s", ["path"]) { service, call in
                let query = try call.reader.readString()
                guard !query.isEmpty else { throw LectorError.invalidArgument("name the book to forget: its title, its file or its identity") }
                service.library.forget(query, reply: call.deferReply())
                return .answered
            },
        ]
    }
}

extension LectorService {
    /// Wires the daily-loop components to the narrator and the audio policy (from `init`).
    func startDailyLoop() throws {
        sleepTimer = try SleepTimer(loop: loop, host: self)
        narrator.onChapterHeardToEnd = { [weak self] in self?.sleepTimer?.chapterEnded() }
        narrator.willResume = { [weak self] in self?.rewindIfDue() }
        library.onOpened = { [weak self] lastHeard, playing in
            guard let self else { return }
            if self.resumeRewind.bookOpened(lastHeard: lastHeard, playing: playing) { self.rewind() }
        }
        audioPolicy.onListenerActed = { [weak self] in self?.sleepTimer?.listenerActed() }
    }

    /// After every change of the narrator's state (from `registerMPRIS`'s observer).
    func dailyLoopStateChanged(from before: PlayerState) {
        let playing = narrator.state.status == .playing
        if (before.status == .playing) != playing {
            sleepTimer?.playbackChanged(playing: playing)
            playing ? resumeRewind.narrationStarted() : resumeRewind.narrationStopped()
        }
    }

    /// Narration is about to resume: after a long enough pause, a little earlier.
    private func rewindIfDue() {
        if resumeRewind.isDue() { rewind() }
    }

    private func rewind() {
        let seconds = resumeRewind.rewindSeconds
        Journal.log(.info, "resuming after a long pause: \(seconds) s earlier, at the sentence's start",
                    fields: audioPolicy.narrationFields([:]))
        narrator.rewind(seconds: Double(seconds))
    }
}
