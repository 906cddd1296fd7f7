import CLectorShim
import CSystemd
import Glibc
import LectorAudio
import LectorBus
import LectorConfig
import LectorCore
import LectorLoop
import LectorSpeech
import LectorState
import Foundation

/// The daemon's one context, as in systemd's hostnamed: every piece of state lives here and is
/// touched only from the event loop thread. Bus handlers parse, act, emit, reply.
///
/// ```swift
/// let service = try LectorService()
/// try service.run()   // until SIGTERM/SIGINT
/// ```
public final class LectorService {
    let loop: EventLoop
    let bus: Bus
    let engine: SpeechEngine
    var soundServer: SoundServer!
    var stream: PlaybackStream?
    let catalog: VoiceCatalog
    /// The last good config.toml (defaults until one is read).
    var configuration = Configuration()
    /// Overhears Notify calls while notifications are read aloud.
    var notificationMonitor: BusMonitor?

    /// SSIP priority rules; bounded, with a per-sender share so one client cannot fill it.
    var queue = AnnouncementQueue<SpeechRequest>(capacity: 256, maxWaitingPerSender: 32)
    /// Per-sender allowance: a burst of 20, then 10 a second; `important` has its own bucket.
    var rateLimiter = SenderRateLimiter(burst: 20, perSecond: 10, maxSenders: 256,
                                        importantBurst: 20, importantPerSecond: 10)
    var current: ActiveSpeech?
    var schedule = HearingSchedule<HeardEvent>()
    var nextSpeechID: UInt64 = 1
    var nextJob: UInt64 = 1

    var narrator: Narrator!
    /// Route changes, calls, ducking (issue 4).
    let policy = AudioPolicyState()
    var inbox: LoopInbox!
    /// Bookmarks are written here, never on the loop (fsync can take long).
    let bookmarkQueue = DispatchQueue(label: "io.github.lector.bookmarks")
    let bookmarks = BookmarkStore(directory: BookmarkStore.defaultDirectory())
    /// Books are parsed here, never on the loop.
    let bookQueue = DispatchQueue(label: "io.github.lector.books")
    /// Opens parse here, never queued behind the previous book's background chapters on `bookQueue`.
    let openQueue = DispatchQueue(label: "io.github.lector.open")
    let latestBook = GenerationTicket()
    /// The latest Open wins: results of older ones are dropped.
    var openGeneration = 0
    /// Bumped when a book is actually replaced: its background chapter loads then stop counting.
    var bookGeneration = 0
    var bookmarkTimer: EventSource!
    var streamRetry: EventSource!
    static let streamRetrySeconds: UInt64 = 1
    /// Seconds between bookmark saves while narrating (a kill -9 loses at most this much).
    static let bookmarkSeconds: UInt64 = 5
    /// Microseconds between timing queries at most while speech events are pending.
    static let longestTimingGap: UInt64 = 200_000

    private var sources: [EventSource] = []
    var markerTimer: EventSource!

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
        loop = try EventLoop()
        engine = try SpeechEngine()
        catalog = VoiceCatalog(voices: engine.voices)
        bus = try Bus.session()
        try bus.attach(to: loop)
        // Without its bus the daemon is unreachable: end (systemd or D-Bus activation restarts it).
        sd_bus_set_exit_on_disconnect(bus.pointer, 1)

        markerTimer = try loop.timer { [unowned self] in self.checkHeard() }
        inbox = try LoopInbox(loop: loop)
        streamRetry = try loop.timer { [unowned self] in self.reopenMissingStreams() }
        narrator = try Narrator(loop: loop, engine: engine, allocateJob: { [unowned self] in
            defer { self.nextJob += 1 }
            return self.nextJob
        })
        bookmarkTimer = try loop.timer { [unowned self] in
            self.saveBookmark()
            if self.narrator.state.status == .playing { self.bookmarkTimer.schedule(after: Self.bookmarkSeconds * 1_000_000) }
        }
        sources.append(try loop.watch(fd: engine.mailbox.fileDescriptor) { [unowned self] _ in
            self.drainSynthesis()
        })
        for signal in [SIGTERM, SIGINT] {
            sources.append(try loop.onSignal(signal) { [unowned self] in self.shutdown(signal: signal) })
        }
        sources.append(try loop.onSignal(SIGHUP) { [unowned self] in try? self.reloadConfiguration() })
        try setUpAudioPolicy()
        try? reloadConfiguration()   // a broken file is logged; defaults stand
        soundServer = try SoundServer(loop: loop, properties: Self.streamProperties)
        soundServer.onStateChange = { [unowned self] state in self.soundServerChanged(state) }

        let userdata = Unmanaged.passUnretained(self).toOpaque()
        try bus.addObject(path: BusNames.objectPath, interface: BusNames.interface,
                          vtable: Self.vtable, userdata: userdata)
        try registerMPRIS()
        narrator.onBookmark = { [unowned self] in self.saveBookmark() }
        narrator.onChapterNeeded = { [unowned self] chapter in self.loadChapterSoon(chapter) }
    }

    /// Takes the bus name, connects to the sound server and serves until a signal stops it.
    public func run() throws {
        soundServer.connect()
        try bus.requestName(BusNames.service)
        try bus.requestName(MPRISNames.service)
        updateNotificationMonitor()
        // Under systemd with WatchdogSec=: sd-event pings the watchdog from the loop itself, so
        // a wedged loop (not just a dead process) gets restarted.
        if sd_event_set_watchdog(loop.event, 1) > 0 { Journal.log(.info, "watchdog enabled") }
        sd_notify(0, "READY=1\nSTATUS=Serving \(BusNames.service)")
        Journal.log(.info, "serving \(BusNames.service) with \(catalog.voices.count) voices")
        _ = try loop.run()
    }

    func shutdown(signal: Int32) {
        Journal.log(.info, signal == 0 ? "quitting (MPRIS Quit)" : "stopping on signal \(signal)")
        sd_notify(0, "STOPPING=1")
        saveBookmark()
        bookmarkQueue.sync {}   // the last bookmark is on disk before we go
        cancelAll(reason: .cancelled)
        releaseDuck()   // queued to the server before we disconnect
        narrator.stream = nil
        // While the loop still runs (libpulse needs it to disconnect), and stream before context:
        // their callbacks reach back into this object.
        stream = nil
        soundServer = nil
        loop.exit(0)
    }

    // MARK: - Signals on the bus

    func emit(_ member: String, _ build: (MessageWriter) throws -> Void) {
        do {
            try bus.emitSignal(path: BusNames.objectPath, interface: BusNames.interface, member: member, build)
        } catch {
            Journal.log(.warning, "could not emit \(member): \(error)")
        }
    }

    func emitFinished(_ id: UInt64, _ reason: FinishReason) {
        emit("SpeechFinished") { try $0.append(id); try $0.append(reason.rawValue) }
    }
}
