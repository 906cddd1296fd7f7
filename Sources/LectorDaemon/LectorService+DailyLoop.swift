import LectorBus
import LectorCore

/// Narrator1's members for the listener's daily loop (issue 13): the library, per-book voice,
/// and, in their own files, the sleep timer and skips. Documented in
/// dbus/io.github.lector.Narrator1.xml, which IntrospectionTests compares to what is served.
extension LectorService {
    func dailyLoopMembers() -> [BusMember<LectorService>] {
        sleepTimerMembers() + skipMembers() + [
            .property("Voice", "s", .change,
                      get: { try $1.append($0.narrator.voice?.name ?? "") },
                      set: { try $0.setNarrationVoice(try $1.readString()) }),
            .property("BookVoices", "a(ssss)", .change) { try $0.writeBookVoices($1) },
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
    /// Narrator1.Voice set: the voice reading the open book, remembered for that book.
    func setNarrationVoice(_ name: String) throws {
        guard narrator.book != nil else {
            throw LectorError(.noBook, "no book is open: a voice is chosen for the book being read (lector read FILE --voice NAME)")
        }
        let voice = try library.catalog.resolve(language: nil, voice: name)   // UnknownVoice, nothing changed (neural voices too)
        if let mismatch = Library.languageMismatch(voice, bookLanguage: narrator.book?.language) {
            throw LectorError.invalidArgument(mismatch + "; " + Library.voiceHint(bookLanguage: narrator.book?.language))
        }
        sleepTimer.listenerActed()
        library.choose(voice: voice.name)   // Voice and BookVoices are announced through library.onVoiceChanged
    }

    /// `BookVoices a(ssss)`: (name, language, engine, quality) of each voice that can read the
    /// open book (`Library.bookVoices`); engine "espeak-ng" or "piper", quality "" for espeak-ng.
    func writeBookVoices(_ writer: MessageWriter) throws {
        let voices = library.bookVoices
        try writer.container("a", "(ssss)") {
            for voice in voices {
                try writer.container("r", "ssss") {
                    try writer.append(voice.name)
                    try writer.append(voice.primaryLanguage)
                    try writer.append(voice.engine.rawValue)
                    try writer.append(voice.neural?.quality ?? "")
                }
            }
        }
    }

    /// Another book, or another voice for it: PropertiesChanged for Voice and BookVoices, each
    /// only when it changed (a voice of another language joins BookVoices while it reads).
    func announceVoices() {
        let now = (voice: narrator.voice?.name ?? "", offered: library.bookVoices)
        var changed: [String] = []
        if now.voice != announcedVoices.voice { changed.append("Voice") }
        if now.offered != announcedVoices.offered { changed.append("BookVoices") }
        announcedVoices = now
        bus.emitPropertiesChanged(path: BusNames.objectPath, interface: MPRISNames.narrator, names: changed)
    }

    /// After every change of the narrator's state (its `onStateChange`, LectorService+Wiring).
    func dailyLoopStateChanged(from before: PlayerState) {
        let playing = narrator.state.status == .playing
        if (before.status == .playing) != playing {
            sleepTimer.playbackChanged(playing: playing)
            playing ? resumeRewind.narrationStarted() : resumeRewind.narrationStopped()
        }
    }

    /// Narration is about to resume: after a long enough pause, a little earlier.
    func rewindIfDue() {
        if resumeRewind.isDue() { rewind() }
    }

    func rewind() {
        let seconds = resumeRewind.rewindSeconds
        Journal.log(.info, "resuming after a long pause: \(seconds) s earlier, at the sentence's start",
                    fields: audioPolicy.narrationFields([:]))
        narrator.rewind(seconds: Double(seconds))
    }
}
