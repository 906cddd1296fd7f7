import CLinux
import CSystemd
import Glibc
import LectorAudio
import LectorBus
import LectorConfig
import LectorCore
import LectorLoop
import LectorNeuralSpeech
import LectorSpeech
import LectorState
import Foundation

/// The daemon's one context, as in systemd's hostnamed: every piece of state lives here and is
/// touched only from the event loop (main) thread, which `@MainActor` lets the compiler check.
/// Bus handlers parse, act, emit, reply.
///
/// Every way out (SIGTERM, SIGINT, MPRIS Quit, the bus going away, a failing loop) ends in the
/// one `teardown()`, run by `run()`'s `defer`, in reverse order of start-up: narration stops
/// and its bookmark is written at the word heard, announcements end, other apps' volumes are
/// restored, streams close before their context, then the bus. An exit nobody asked for
/// returns a failure status, so systemd restarts the unit.
///
/// ```swift
/// let service = try LectorService()
/// let status = try service.run()   // until SIGTERM/SIGINT/Quit/bus loss
/// exit(status)
/// ```
@MainActor
public final class LectorService {
    /// Why the daemon stops. Only the ones someone asked for are a success.
    public enum ExitReason: Equatable, Sendable {
        case signal(Int32)
        case quit
        case busLost
        case failure(String)

        public var status: Int32 {
            switch self {
            case .signal, .quit: return 0
            case .busLost, .failure: return 1
            }
        }
    }

    let loop: EventLoop
    let bus: Bus
    let engine: SpeechEngine
    /// Narration's synthesizer: espeak-ng, or a neural voice (with espeak-ng reading when it cannot).
    let narrationVoices: NarrationVoices
    let soundServer: SoundServer
    let catalog: VoiceCatalog
    /// The last good config.toml (defaults until one is read).
    var configuration = Configuration()
    /// Desktop notifications read aloud (opt-in).
    let notifications: NotificationReader

    /// Every component as it started, with its stop: `teardown()` is start-up reversed.
    let startup = StartupOrder()
    // The components, in start-up order.
    /// Announcements: the SSIP queue and the speech being spoken.
    let announcer: Announcer
    /// The book player behind MPRIS.
    let narrator: Narrator
    /// Books and bookmarks.
    let library: Library
    /// Route changes, calls, ducking (issue 4).
    let audioPolicy: AudioPolicyDriver
    /// `lector sleep`: pauses narration when the time is up, fading the last 20 s.
    let sleepTimer: SleepTimer
    /// After a long pause, narration resumes a sentence or so earlier.
    let resumeRewind = ResumeRewind()
    /// Reopens a failed stream a moment later.
    private var streamRetry: EventSource?
    /// GetChapterText calls waiting for their chapter, and the timer that ends the wait.
    var chapterTextWaiters: [Int: [DeferredReply]] = [:]
    var chapterTextTimer: EventSource?
    static let chapterTextWaitMicroseconds: UInt64 = 10_000_000
    /// Can the open book's voice read it (`LectorService+Pronunciation`): nil until checked.
    var pronunciation: PronunciationReport?
    /// The last reason a neural voice could not speak (Narrator1.Book's `voice-problem` while
    /// that voice reads the book).
    var voiceProblem: (voice: String, message: String)?
    /// Narrator1.Voice and BookVoices as PropertiesChanged last told them (`announceVoices`).
    var announcedVoices: (voice: String, offered: [Voice]) = ("", [])
    /// Advanced for each check started: the work for an older book or voice stops, its result is dropped.
    let pronunciationTicket = GenerationTicket()
    /// The last check had too little text (a title page): it is tried again as chapters arrive.
    var pronunciationNeedsText = false
    static let streamRetrySeconds: UInt64 = 1
    /// How long an exit waits for the sound server to carry out the volume restores.
    static let exitDrainMicroseconds: UInt64 = 1_000_000

    private var sources: [EventSource] = []

    /// Set by the first `requestExit`; later ones change nothing.
    private(set) var exitReason: ExitReason?
    private var quiesced = false
    private var tornDown = false
    private var exitDeadline: EventSource?

    /// `module-stream-restore.id`: our own key for saved volumes. Without it the server files
    /// them by role, so setting the narration's volume ("music") would change the saved volume
    /// of every music player, and theirs would be applied to narration.
    static let streamProperties = [
        "media.role": "event",
        "media.name": "Lector speech",
        "module-stream-restore.id": "sink-input-by-application-id:io.github.lector.Lector.speech",
        "application.name": "Lector",
        "application.id": "io.github.lector.Lector",
        "application.icon_name": "io.github.lector.Lector",
    ]

    public init() throws {
        // Before any thread starts, so the espeak thread inherits the mask and sd-event gets them.
        EventLoop.blockSignals([SIGTERM, SIGINT, SIGHUP])
        // Book parsing frees its temporaries on worker threads; with glibc's default of 8 arenas
        // per core those pages stay with the process. Two arenas keep RSS near what is in use.
        _ = mallopt(M_ARENA_MAX, 2)
        // And a fixed threshold: blocks of 4 MiB and more (a book's long line, a big chapter's
        // text) are mapped for themselves and returned when freed. glibc's otherwise rises to the
        // largest block freed, up to 32 MiB, and later ones stay in the arenas once freed: a
        // 10-MB one-line text opened and then replaced left 16-30 MB more resident. The trim
        // threshold is paired with it as glibc's own rising one is (twice), so the arenas give
        // memory back no more eagerly than before (espeak-ng 1.51 reads freed blocks).
        _ = mallopt(M_MMAP_THRESHOLD, 4 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 8 << 20)
        let startup = startup
        let loop = try EventLoop()
        self.loop = loop
        startup.add("event loop") { loop.close() }
        let engine = try SpeechEngine()
        self.engine = engine
        startup.add("espeak-ng") { engine.shutdown() }
        catalog = VoiceCatalog(voices: engine.voices)
        // Books may be read by a neural voice too, chosen by name; announcements stay espeak-ng's.
        // Voice files are looked for at the first need (Library.catalog), not at start-up, and
        // again when a voice directory changed since (the stamp is taken before the scan).
        let espeakVoices = engine.voices
        let narrationCatalog = {
            let stamp = NeuralVoiceFinder.Stamp()
            let neural = NeuralVoiceFinder.find()
            for problem in neural.problems { Journal.log(.warning, "not a usable voice: \(problem)") }
            return Library.ScannedCatalog(catalog: VoiceCatalog(voices: espeakVoices + neural.voices),
                                          isCurrent: { stamp.settled && NeuralVoiceFinder.Stamp() == stamp })
        }
        let narrationVoices = NarrationVoices(espeak: engine, voices: catalog)
        self.narrationVoices = narrationVoices
        startup.add("narration voices") { narrationVoices.close() }
        let bus = try Bus.session()
        self.bus = bus
        startup.add("bus") { bus.close() }   // objects and matches first, then the connection
        let soundServer = try SoundServer(loop: loop, properties: Self.streamProperties)
        self.soundServer = soundServer
        startup.add("sound server") { soundServer.close() }   // streams, mirror, then the context
        // Engine jobs of the announcer and the narrator share one numbering.
        let jobs = JobNumbers()
        let announcer = try Announcer(loop: loop, engine: engine, catalog: catalog, allocateJob: jobs.next)
        self.announcer = announcer
        startup.add("announcer") { announcer.close() }
        let notifications = NotificationReader(loop: loop) { [announcer] text in announcer.announceNotification(text) }
        self.notifications = notifications
        startup.add("notifications") { notifications.close() }
        let narrator = try Narrator(loop: loop, engine: narrationVoices, allocateJob: jobs.next)
        self.narrator = narrator
        startup.add("narrator") { narrator.close() }
        let library = try Library(loop: loop, narration: narrator, catalog: narrationCatalog)
        self.library = library
        startup.add("library") { library.close() }
        let mirror = SoundServerMirror()   // held by the policy; the sound server attaches it to each connection
        let audioPolicy = try AudioPolicyDriver(loop: loop, mirror: mirror, narrator: narrator, announcer: announcer)
        self.audioPolicy = audioPolicy
        startup.add("audio policy") { audioPolicy.close() }
        let sleepTimer = try SleepTimer(loop: loop, narration: narrator)
        self.sleepTimer = sleepTimer
        startup.add("sleep timer") { sleepTimer.close() }

        try bus.attach(to: loop)
        streamRetry = try loop.timer { [weak self] in self?.reopenMissingStreams() }
        startup.add("stream retry") { [weak self] in self?.streamRetry?.close() }
        chapterTextTimer = try loop.timer { [weak self] in
            self?.failChapterTextWaiters(LectorError(.chapterNotReady, "the chapter is still being read from the book "
                                                     + "(chapters load in order after the one playing); ask again shortly"))
        }
        startup.add("chapter text timer") { [weak self] in self?.chapterTextTimer?.close() }
        sources.append(try loop.watch(fd: engine.mailbox.fileDescriptor) { [weak self] _ in
            self?.drainSynthesis()
        })
        for signal in [SIGTERM, SIGINT] {
            sources.append(try loop.onSignal(signal) { [weak self] in self?.requestExit(.signal(signal)) })
        }
        sources.append(try loop.onSignal(SIGHUP) { [weak self] in try? self?.reloadConfiguration() })
        startup.add("synthesis and signal sources") { [weak self] in
            for source in self?.sources ?? [] { source.close() }
            self?.sources = []
        }
        soundServer.attach(mirror)
        try wireComponents()
        try? reloadConfiguration()   // a broken file is logged; defaults stand
        try bus.add(lector1Object())
        try registerMPRIS()
    }

    /// Engine job numbers, shared by the announcer and the narrator.
    private final class JobNumbers {
        private var last: UInt64 = 0
        func next() -> UInt64 {
            last += 1
            return last
        }
    }

    isolated deinit {
        assert(tornDown, "LectorService.teardown() did not run")
    }

    /// Takes the bus names, connects to the sound server and serves until something ends the
    /// loop; returns the process's exit status. Whatever ends it, `teardown()` runs.
    public func run() throws -> Int32 {
        defer { teardown() }
        soundServer.connect()
        try bus.requestName(BusNames.service)
        try bus.requestName(MPRISNames.service)
        notifications.start()
        // After the names are taken: media controls see the book appear (CanPlay, Metadata).
        library.resumeAtStartUp()
        // Under systemd with WatchdogSec=: sd-event pings the watchdog from the loop itself, so
        // a wedged loop (not just a dead process) gets restarted.
        if sd_event_set_watchdog(loop.event, 1) > 0 { Journal.log(.info, "watchdog enabled") }
        sd_notify(0, "READY=1\nSTATUS=Serving \(BusNames.service)")
        Journal.log(.info, "serving \(BusNames.service) with \(catalog.voices.count) voices")
        let code = try loop.run()
        // The loop ended without `requestExit` (sd-event's own exit): not asked for.
        return exitReason?.status ?? (code == 0 ? 1 : code)
    }

    /// Every exit starts here: narration, bookmark, announcements and ducks are settled at once,
    /// then the loop ends when the sound server has carried out the volume restores (at most
    /// `exitDrainMicroseconds`).
    func requestExit(_ reason: ExitReason) {
        guard exitReason == nil else { return }
        exitReason = reason
        switch reason {
        case .signal(let signal): Journal.log(.info, "stopping on signal \(signal)")
        case .quit: Journal.log(.info, "quitting (MPRIS Quit)")
        case .busLost: Journal.log(.warning, "lost the session bus: saving and exiting", fields: ["LECTOR_ERROR": "BusLost"])
        case .failure(let why): Journal.log(.error, "stopping: \(why)")
        }
        sd_notify(0, "STOPPING=1")
        quiesce()
        let status = reason.status
        let leave: @MainActor () -> Void = { [weak self] in
            guard let self else { return }
            self.closeAudio()   // while the loop runs: libpulse needs it to take the streams down
            self.loop.exit(status)
        }
        exitDeadline = try? loop.timer(handler: leave)
        startup.add("exit deadline") { [weak self] in self?.exitDeadline?.close() }
        exitDeadline?.schedule(after: Self.exitDrainMicroseconds)
        soundServer.drain(leave)
    }

    /// Narration's and the announcements' streams, then the sound server's context. Idempotent.
    private func closeAudio() {
        narrator.close()
        announcer.close()
        soundServer.close()        // streams, mirror, then the context
    }

    /// Stops narration at the word being heard and takes its bookmark, drops what the sound
    /// server still holds of it (cork, then flush: narration keeps seconds there), ends every
    /// announcement and releases every duck. Idempotent. Nothing here blocks the loop: the cork
    /// leaves for the server when the loop runs next, and waiting for the bookmark's fsync first
    /// kept the listener hearing the book for as long as the disk took (`teardown()` waits).
    private func quiesce() {
        guard !quiesced else { return }
        quiesced = true
        narrator.settleHeard()
        narrator.pause()
        library.saveBookmark()
        narrator.silence()
        announcer.cancelAll(reason: .cancelled)
        audioPolicy.releaseDuck()
    }

    /// The one teardown: narration settled and the bookmark on disk, callers answered, then every
    /// component stopped in reverse order of start-up (`startup`); from `run()`'s `defer`, so on
    /// every exit. Idempotent.
    func teardown() {
        guard !tornDown else { return }
        if exitReason == nil { exitReason = .failure("the event loop ended") }
        quiesce()
        library.flushBookmarks()   // the last bookmark is on disk before we go
        failChapterTextWaiters(LectorError(.failed, "Lector is stopping"))   // while the bus is there
        startup.stopAll()
        tornDown = true
        Journal.log(.info, "stopped")
    }

    // MARK: - Signals on the bus

    /// A Lector1 signal (SpeechStarted, SpeakingRange, SpeechFinished).
    func emit(_ member: String, _ build: (MessageWriter) throws -> Void) {
        emitSignal(BusNames.objectPath, BusNames.interface, member, build)
    }

    /// Any signal; a failure is logged (a client cannot act on it), and nothing goes out once
    /// the bus is closed.
    func emitSignal(_ path: String, _ interface: String, _ member: String, _ build: (MessageWriter) throws -> Void) {
        guard !bus.isClosed else { return }
        do {
            try bus.emitSignal(path: path, interface: interface, member: member, build)
        } catch {
            Journal.log(.warning, "could not emit \(member): \(error)")
        }
    }

}

/// The announcer's signals go on the bus.
extension LectorService {
    func announcementHeard(_ event: Announcer.Signal) {
        switch event {
        case .started(let id):
            emit("SpeechStarted") { try $0.append(id) }
        case .range(let id, let start, let length):
            emit("SpeakingRange") { try $0.append(id); try $0.append(start); try $0.append(length) }
        case .finished(let id, let reason):
            emit("SpeechFinished") { try $0.append(id); try $0.append(reason.rawValue) }
        }
    }

    /// A failed stream is reopened a moment later (a server without a sink costs one attempt a second).
    func scheduleStreamRetry() { streamRetry?.schedule(noLaterThan: Self.streamRetrySeconds * 1_000_000) }
}
