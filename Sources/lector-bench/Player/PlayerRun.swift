import ArgumentParser
import Foundation
import LectorBus
import LectorInterface
import LectorTestKit
#if canImport(Glibc)
import Glibc
#endif

/// The generated book both player subcommands use.
struct BookOptions: ParsableArguments {
    @Option(help: "Chapters of the generated book.") var chapters = 120
    @Option(help: "Bytes of prose per chapter.") var chapterBytes = 13_500

    func validate() throws {
        guard chapters >= 1, chapterBytes >= 500 else { throw ValidationError("--chapters >= 1, --chapter-bytes >= 500") }
    }
}

/// Issue 3's figures for the book player: a large generated book's open → first audio time and
/// the daemon's memory with it open.
struct Player: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure lector's book player: open -> first audio and RSS with a large book.",
        discussion: """
            The book (an EPUB 3 and a plain-text file of the same prose, 120 chapters, about 1.6 MB of text) is generated in the run and deleted with the session.

            Open: Narrator1.Open(uri, {"from-start": true}) → first non-silent sample at the sink's monitor, for both books, interleaved; before every run Player.Stop, the open book's chapters all parsed and silence on the monitor. A third series opens the EPUB right after another Open's reply (that one with play=false), while the first book is still being parsed in the background.
            Memory: VmRSS/VmHWM of the daemon with the EPUB open and playing for 3 s, and again after all the opens.
            """)

    @OptionGroup var common: CommonOptions
    @OptionGroup var book: BookOptions
    @Option(help: "Timed opens per book.") var runs = 20
    @Option(help: "Which books to time: both, epub or text.") var books: BookChoice = .both

    enum BookChoice: String, ExpressibleByArgument, CaseIterable {
        case both, epub, text
    }

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
    }

    func run() throws {
        let log = Log(tag: "player-bench")
        let lectorPath = try common.lectorPath(log)
        var results = BenchResults()
        try PlayerRun.inSession(lectorPath: lectorPath, book: book, log: log) { run in
            try run.measureOpens(runs: runs, books: books, into: &results)
        }
        var report = BenchReport()
        PlayerReport.opens(results, into: &report)
        report.print()
    }
}

/// MPRIS Properties.GetAll round trips and throughput, lector (a generated EPUB playing) against
/// mpv + mpv-mpris on the same private bus.
struct GetAll: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get-all",
        abstract: "MPRIS Properties.GetAll(Player) round trips and throughput: lector against mpv + mpv-mpris.",
        discussion: """
            Properties.GetAll("org.mpris.MediaPlayer2.Player") from in-process sd-bus clients (LectorBus), sequential from one connection and back to back from several threads (one connection each), against lector playing the generated EPUB, then against mpv + mpv-mpris playing a looped tone on its own sink.
            """)

    @OptionGroup var common: CommonOptions
    @OptionGroup var book: BookOptions
    @Flag(help: "Leave out the mpv + mpv-mpris rows.") var skipMpv = false
    @Option(help: "The mpv-mpris plugin (default: the first of /usr/lib/mpv-mpris/mpris.so, /etc/mpv/scripts/mpris.so, ...).")
    var mpvMpris: String?
    @Option(help: "Sequential GetAll calls per player.") var getallCalls = 5000
    @Option(help: "Concurrent GetAll clients (threads, one bus connection each).") var clients = 8
    @Option(help: "Length of the concurrent GetAll window, in seconds.") var seconds = 3.0

    func validate() throws {
        guard getallCalls >= 100 else { throw ValidationError("--getall-calls must be at least 100") }
        guard clients >= 1 else { throw ValidationError("--clients must be at least 1") }
        guard seconds > 0 else { throw ValidationError("--seconds must be positive") }
    }

    func run() throws {
        let log = Log(tag: "player-bench")
        let lectorPath = try common.lectorPath(log)
        var results = BenchResults()
        // Decide about mpv before anything starts, so a missing mpv is said up front.
        var mpvSetup: (executable: String, plugin: String)?
        if skipMpv {
            results.mpv.unavailable = "skipped (--skip-mpv)"
        } else if let mpv = MPV.executable(searchPath: ProcessInfo.processInfo.environment["PATH"]) {
            if let plugin = MPV.plugin(explicit: mpvMpris) {
                mpvSetup = (mpv, plugin)
            } else {
                results.mpv.unavailable = "mpv-mpris plugin not found; " + MPV.installHint
            }
        } else {
            results.mpv.unavailable = "mpv not found on PATH; " + MPV.installHint
        }
        if let reason = results.mpv.unavailable { log("mpv rows: \(reason)") }
        let load = GetAllLoad(calls: getallCalls, clients: clients, seconds: seconds)
        try PlayerRun.inSession(lectorPath: lectorPath, book: book, log: log) { run in
            try run.measureGetAll(load, mpv: mpvSetup, into: &results)
        }
        var report = BenchReport()
        PlayerReport.getAll(results, into: &report)
        report.print()
    }
}

/// How hard the GetAll rows press.
struct GetAllLoad {
    let calls: Int
    let clients: Int
    let seconds: Double
}

/// One benchmark run inside one session (sinks lector_bench and mpv_bench), with one
/// `lector serve` and the generated books. Everything is started through the session (never
/// Foundation.Process: with the session's PulseAudio up, its children stop being reaped).
final class PlayerRun {
    /// Silence on the monitor this long after Stop means the previous run is over.
    static let quietBeforeRun: TimeInterval = 0.5

    private let session: TestSession
    private let lectorExecutable: String
    private let log: Log
    private let books: GeneratedBooks
    private var recording: MonitorRecording!
    private var daemon: ManagedProcess!
    private var client: BusClient!

    /// A session, the books, `lector serve` with its bus names, then `body`; a failure is
    /// logged with the session's diagnostics and ends the benchmark with status 1.
    static func inSession(lectorPath: String, book: BookOptions, log: Log, _ body: (PlayerRun) throws -> Void) throws {
        let session = try BenchSession.start(sinks: ["lector_bench", "mpv_bench"], log: log)
        defer { session.shutdown() }
        do {
            let run = try PlayerRun(session: session, lectorPath: lectorPath, book: book, log: log)
            try body(run)
        } catch {
            log("benchmark failed: \(error)\n\(session.diagnostics)")
            throw ExitCode(1)
        }
    }

    private init(session: TestSession, lectorPath: String, book: BookOptions, log: Log) throws {
        self.session = session
        lectorExecutable = lectorPath
        self.log = log
        let bookDirectory = session.directory.appendingPathComponent("books", isDirectory: true)
        try FileManager.default.createDirectory(at: bookDirectory, withIntermediateDirectories: true)
        books = try BookGenerator.generate(into: bookDirectory, chapters: book.chapters, bytesPerChapter: book.chapterBytes)
        log(String(format: "generated %d chapters, %.2f MB of prose: %@ (%.2f MB, %@), %@ (%.2f MB)",
                   books.chapters, Double(books.proseBytes) / 1_000_000, books.epub.lastPathComponent,
                   Double(books.epubFileBytes) / 1_000_000, books.compression, books.text.lastPathComponent,
                   Double(books.textFileBytes) / 1_000_000))

        recording = try session.record(sink: "lector_bench")
        daemon = try session.spawn(lectorExecutable, ["serve"])
        do {
            try session.waitForBusName(BusNames.service, timeout: 15)
            try session.waitForBusName(MPRISNames.service, timeout: 5)
        } catch {
            throw BenchError("lector serve did not take its bus names: \(error)\n\(daemon.output)")
        }
        client = try BusClient()
        usleep(300_000)
    }

    func measureOpens(runs: Int, books choice: Player.BookChoice, into results: inout BenchResults) throws {
        results.books = books
        results.idleMemory = MemoryFigure.read(pid: daemon.pid, note: "lector serve, idle, no book opened yet")
        let timed: [Bool]
        switch choice {
        case .both: timed = [true, false]
        case .epub: timed = [true]
        case .text: timed = [false]
        }
        var opens = 1
        var epub = OpenSeries(key: "EPUB", label: "EPUB")
        var text = OpenSeries(key: "text", label: "plain text")
        var afterOpen = OpenSeries(key: "EPUB after Open", label: "EPUB right after another Open")

        // The daemon's first open: voice loading and stream creation happen here, so it is not timed;
        // then the EPUB plays for 3 s and the daemon's memory is read.
        let coldEpub = try openOnce(books.epub)
        epub.cold = (coldEpub.reply, coldEpub.firstAudio)
        log(String(format: "first EPUB open (untimed): reply %.1f ms, first audio %.1f ms", coldEpub.reply, coldEpub.firstAudio))
        results.freshMemory = try memoryWhilePlaying(since: coldEpub.sound,
                                                     note: "lector serve, EPUB open and playing 3 s (first open)")
        try stopAndWait()
        if timed.contains(false) {
            let coldText = try openOnce(books.text)
            opens += 1
            text.cold = (coldText.reply, coldText.firstAudio)
            log(String(format: "first text open (untimed): reply %.1f ms, first audio %.1f ms", coldText.reply, coldText.firstAudio))
            try stopAndWait()
        }

        for round in 0..<runs {
            // Alternate which book goes first in a round.
            let order = round % 2 == 0 ? timed : timed.reversed()
            var summary: [String] = []
            for isEPUB in order {
                let url = isEPUB ? books.epub : books.text
                do {
                    let outcome = try openOnce(url)
                    opens += 1
                    if isEPUB {
                        epub.firstAudio.append(outcome.firstAudio); epub.reply.append(outcome.reply)
                    } else {
                        text.firstAudio.append(outcome.firstAudio); text.reply.append(outcome.reply)
                    }
                    summary.append(String(format: "%@ %.1f ms (reply %.1f)", isEPUB ? "EPUB" : "text", outcome.firstAudio, outcome.reply))
                } catch let error as BenchError {
                    if isEPUB { epub.failures += 1 } else { text.failures += 1 }
                    summary.append("\(isEPUB ? "EPUB" : "text") failed: \(error)")
                    try checkDaemon()
                }
                try stopAndWait()
            }
            // An open straight after another open's reply, while the first book's remaining chapters
            // are still being parsed in the background (the first is opened with play=false, so
            // the monitor stays silent for the second).
            if timed.contains(true) {
                do {
                    try waitUntilBookLoaded()
                    try open(books.epub, play: false)
                    let outcome = try openOnce(books.epub, settled: false)
                    opens += 2
                    afterOpen.firstAudio.append(outcome.firstAudio); afterOpen.reply.append(outcome.reply)
                    summary.append(String(format: "EPUB after an open %.1f ms (reply %.1f)", outcome.firstAudio, outcome.reply))
                } catch let error as BenchError {
                    afterOpen.failures += 1
                    summary.append("EPUB after an open failed: \(error)")
                    try checkDaemon()
                }
                try stopAndWait()
            }
            let memory = MemoryFigure.read(pid: daemon.pid, note: "")
            log("round \(round + 1)/\(runs): " + summary.joined(separator: ", ")
                      + (memory.map { ", daemon RSS/HWM " + $0.text } ?? ""))
        }
        results.open = timed.map { $0 ? epub : text } + (timed.contains(true) ? [afterOpen] : [])

        // Memory again after all the opens (a leak per open would show here), EPUB playing 3 s.
        let again = try openOnce(books.epub)
        opens += 1
        results.afterRunsMemory = try memoryWhilePlaying(
            since: again.sound, note: "lector serve, EPUB playing 3 s after \(opens) opens")

    }

    func measureGetAll(_ load: GetAllLoad, mpv mpvSetup: (executable: String, plugin: String)?,
                       into results: inout BenchResults) throws {
        results.books = books
        // GetAll against lector, the EPUB playing (its synthesis competing for the CPU, as in real use).
        _ = try openOnce(books.epub)
        guard client.waitForStatus("Playing", timeout: 5) else { throw BenchError("lector is not Playing before GetAll") }
        results.lector.propertyCount = try client.getAllPlayerDisplay().count
        try measureGetAll(destination: MPRISNames.service, load, into: &results.lector, label: "lector",
                          pause: { try self.client.player("Pause") },
                          isPaused: { self.client.waitForStatus("Paused", timeout: 5) })
        try client.player("Stop")
        _ = recording.waitForSilence(quiet: Self.quietBeforeRun, timeout: 10)
        try checkDaemon()

        if let mpvSetup {
            do {
                try measureMPV(mpvSetup, load, into: &results)
            } catch {
                results.mpv = PlayerGetAll()
                results.mpv.unavailable = "failed: \(error)"
                log("mpv measurement failed: \(error)")
            }
        }
        try checkDaemon()
    }

    // MARK: - Open → first audio

    struct OpenOutcome {
        let start: Date
        let sound: Date
        let reply: Double
        let firstAudio: Double
    }

    /// Narrator1.Open(uri, {"from-start": true}); the clock starts just before the call is written.
    /// With `settled`, first waits until the open book's chapters are all parsed, so the open is
    /// not queued behind the previous book's background parsing (that case is its own series).
    private func openOnce(_ url: URL, settled: Bool = true) throws -> OpenOutcome {
        if settled { try waitUntilBookLoaded() }
        guard recording.waitForSilence(quiet: Self.quietBeforeRun, timeout: 15) else {
            throw BenchError("the sink never fell silent before the run")
        }
        let start = Date()
        try open(url, play: true)
        let replied = Date()
        guard let sound = recording.waitForSound(after: start, timeout: 20) else {
            throw BenchError("no sound within 20 s of opening \(url.lastPathComponent)")
        }
        return OpenOutcome(start: start, sound: sound, reply: replied.timeIntervalSince(start) * 1000,
                           firstAudio: sound.timeIntervalSince(start) * 1000)
    }

    /// Polls Narrator1.GetChapterText(last chapter), which fails while that chapter is still being
    /// parsed in the background (chapters after the first are parsed in order, the last last).
    /// Returns at once when no book is open.
    private func waitUntilBookLoaded(timeout: TimeInterval = 60) throws {
        guard let count = Int((try? client.call(path: BusNames.objectPath, interface: BusClient.properties, member: "Get") {
            try $0.append(MPRISNames.narrator)
            try $0.append("Book")
        }.readDisplayDictionary())?["chapter-count"] ?? ""), count > 0 else { return }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            do {
                try client.call(path: BusNames.objectPath, interface: MPRISNames.narrator, member: "GetChapterText") {
                    try $0.append(UInt32(count - 1))
                }
                return
            } catch {
                guard Date() < deadline else { throw BenchError("the open book's chapters were not all parsed within \(Int(timeout)) s: \(error)") }
                usleep(10_000)
            }
        }
    }

    /// Narrator1.Open(uri, {"from-start": true, "play": play}); returns with the reply.
    private func open(_ url: URL, play: Bool) throws {
        try client.open(url, options: play ? ["from-start": true] : ["from-start": true, "play": false])
    }

    private func stopAndWait() throws {
        try client.player("Stop")
        guard recording.waitForSilence(quiet: Self.quietBeforeRun, timeout: 10) else {
            throw BenchError("still sound on the monitor 10 s after Stop")
        }
    }

    private func memoryWhilePlaying(since sound: Date, note: String) throws -> MemoryFigure? {
        let wait = 3 - Date().timeIntervalSince(sound)
        if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
        try waitUntilBookLoaded()
        let status = (try? client.playbackStatus()) ?? "?"
        guard status == "Playing" else { throw BenchError("lector is \(status), not Playing, 3 s after opening") }
        return MemoryFigure.read(pid: daemon.pid, note: note)
    }

    private func checkDaemon() throws {
        guard !daemon.isRunning else { return }
        throw BenchError("lector serve (pid \(daemon.pid)) exited with status "
                         + "\(daemon.exitStatus.map(String.init) ?? "?"); its output:\n\(daemon.output)")
    }

    // MARK: - GetAll

    private func measureGetAll(destination: String, _ load: GetAllLoad, into figures: inout PlayerGetAll, label: String,
                               pause: () throws -> Void, isPaused: () -> Bool) throws {
        log("\(label): \(load.calls) sequential GetAll calls (playing)")
        figures.playing.sequential = try GetAllBenchmark.sequential(destination: destination, calls: load.calls)
        log("\(label): \(load.clients) clients for \(load.seconds) s (playing)")
        try GetAllBenchmark.concurrent(destination: destination, clients: load.clients, seconds: load.seconds,
                                       into: &figures.playing)
        try pause()
        guard isPaused() else { throw BenchError("\(label) did not pause") }
        log("\(label): \(load.calls) sequential GetAll calls (paused)")
        figures.paused = try GetAllBenchmark.sequential(destination: destination, calls: load.calls)
    }

    private func measureMPV(_ setup: (executable: String, plugin: String), _ load: GetAllLoad,
                            into results: inout BenchResults) throws {
        let version = try session.run(setup.executable, ["--no-config", "--version"], timeout: 10)
        results.mpvVersion = version.stdout.split(separator: "\n").first.map { String($0.components(separatedBy: " Copyright").first ?? String($0)) }
        results.notes.append("mpv: \(results.mpvVersion ?? "?"), plugin \(setup.plugin), tone on its own sink mpv_bench")
        let tone = session.directory.appendingPathComponent("books/tone.wav")
        try MPV.writeTone(to: tone)
        let mpv = try session.spawn(setup.executable, MPV.arguments(plugin: setup.plugin, sink: "mpv_bench", file: tone))
        do {
            try session.waitForBusName(MPV.busName, timeout: 15)
        } catch {
            throw BenchError("mpv did not take \(MPV.busName): \(error)\n\(mpv.output)")
        }
        let mpvClient = try BusClient(destination: MPV.busName)
        guard mpvClient.waitForStatus("Playing", timeout: 10) else {
            throw BenchError("mpv is not Playing: \((try? mpvClient.playbackStatus()) ?? "?")\n\(mpv.output)")
        }
        let mpvRecording = try session.record(sink: "mpv_bench")
        if mpvRecording.waitForSound(after: Date(), timeout: 5) == nil {
            results.notes.append("mpv's tone was not heard on mpv_bench.monitor (it may not really be playing)")
        }
        mpvRecording.stop()
        usleep(1_000_000)
        results.mpvMemory = MemoryFigure.read(pid: mpv.pid, note: "mpv + mpv-mpris, playing a looped WAV")
        results.mpv.propertyCount = try mpvClient.getAllPlayerDisplay().count
        try measureGetAll(destination: MPV.busName, load, into: &results.mpv, label: "mpv",
                          pause: { try mpvClient.player("Pause") },
                          isPaused: { mpvClient.waitForStatus("Paused", timeout: 5) })
        guard mpv.isRunning else { throw BenchError("mpv exited during the benchmark:\n\(mpv.output)") }
        mpv.terminate(grace: 2)
    }
}
