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
        audioPolicy.onListenerActed = { [weak self] in self?.sleepTimer?.listenerActed() }
    }

    /// After every change of the narrator's state (from `registerMPRIS`'s observer).
    func dailyLoopStateChanged(from before: PlayerState) {
        let playing = narrator.state.status == .playing
        if (before.status == .playing) != playing { sleepTimer?.playbackChanged(playing: playing) }
    }
}
