import ArgumentParser
import Foundation
import LectorBus
import LectorTestKit
#if canImport(Glibc)
import Glibc
#endif

/// `lector-player-bench`: issue 3's figures for the book player. A large generated book's
/// open → first audio time and the daemon's memory with it open, and MPRIS
/// Properties.GetAll round trips and throughput against mpv + mpv-mpris on the same private bus.
struct PlayerBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lector-player-bench",
        abstract: "Measure lector's book player: open -> first audio, RSS, and MPRIS GetAll against mpv-mpris.",
        discussion: """
            Everything runs in a private session of the test kit (a private dbus-daemon and a private PulseAudio with null sinks). The book (an EPUB 3 and a plain-text file of the same prose, 120 chapters, about 1.6 MB of text) is generated in the run and deleted with the session.

            Open: Narrator1.Open(uri, {"from-start": true}) → first non-silent sample at the sink's monitor, for both books, interleaved; before every run Player.Stop, the open book's chapters all parsed and silence on the monitor. A third series opens the EPUB right after another Open's reply (that one with play=false), while the first book is still being parsed in the background.
            Memory: VmRSS/VmHWM of the daemon with the EPUB open and playing for 3 s.
            GetAll: Properties.GetAll("org.mpris.MediaPlayer2.Player") from in-process sd-bus clients, sequential from one connection and back to back from several threads (one connection each), against lector and mpv + mpv-mpris.

            Use a release build for figures that matter:
              swift build -c release --product lector && swift build -c release --product lector-player-bench
              .build/release/lector-player-bench

            Lines starting with "BENCH " are JSON, one per metric. See docs/benchmarks.md.
            """)

    @Option(help: "Timed opens per book.") var runs = 20
    @Option(help: "Which books to time: both, epub or text.") var books: BookChoice = .both
    @Option(help: "The lector executable (default: the one next to this executable).") var lector: String?
    @Flag(help: "Leave out the mpv + mpv-mpris rows.") var skipMpv = false
    @Option(help: "The mpv-mpris plugin (default: the first of /usr/lib/mpv-mpris/mpris.so, /etc/mpv/scripts/mpris.so, ...).")
    var mpvMpris: String?
    @Option(help: "Sequential GetAll calls per player.") var getallCalls = 5000
    @Option(help: "Concurrent GetAll clients (threads, one bus connection each).") var clients = 8
    @Option(help: "Length of the concurrent GetAll window, in seconds.") var seconds = 3.0
    @Option(help: "Chapters of the generated book.") var chapters = 120
    @Option(help: "Bytes of prose per chapter.") var chapterBytes = 13_500

    enum BookChoice: String, ExpressibleByArgument, CaseIterable {
        case both, epub, text
    }

    static let build: String = {
        #if DEBUG
        return "debug"
        #else
        return "release"
        #endif
    }()

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        guard getallCalls >= 100 else { throw ValidationError("--getall-calls must be at least 100") }
        guard clients >= 1 else { throw ValidationError("--clients must be at least 1") }
        guard seconds > 0 else { throw ValidationError("--seconds must be positive") }
        guard chapters >= 1, chapterBytes >= 500 else { throw ValidationError("--chapters >= 1, --chapter-bytes >= 500") }
    }

    func run() throws {
        let lectorPath = try LectorExecutable.besideThisExecutable(override: lector)
        Log.write("\(Self.build) build; lector: \(lectorPath)")
        var results = BenchResults()
        results.build = Self.build

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
        if let reason = results.mpv.unavailable { Log.write("mpv rows: \(reason)") }

        let session = try TestSession(sinks: ["lector_bench", "mpv_bench"])
        defer { session.shutdown() }
        // In-process sd-bus clients (Bus.session()) connect to DBUS_SESSION_BUS_ADDRESS.
        setenv("DBUS_SESSION_BUS_ADDRESS", session.busAddress, 1)
        do {
            try PlayerRun(session: session, lectorPath: lectorPath, options: self, mpv: mpvSetup).run(into: &results)
        } catch {
            Log.write("benchmark failed: \(error)\n\(session.diagnostics)")
            throw ExitCode(1)
        }
        Report.print(results)
    }
}

enum Log {
    static func write(_ message: String) {
        FileHandle.standardError.write(Data("[player-bench] \(message)\n".utf8))
    }
}

/// One benchmark run inside one session. Everything is started through the session (never
/// Foundation.Process: with the session's PulseAudio up, its children stop being reaped).
final class PlayerRun {
    static let lectorName = "io.github.lector.Lector1"
    static let lectorPath = "/io/github/lector/Lector1"
    static let narratorInterface = "io.github.lector.Narrator1"
    static let mprisName = "org.mpris.MediaPlayer2.lector"
    /// Silence on the monitor this long after Stop means the previous run is over.
    static let quietBeforeRun: TimeInterval = 0.5

    private let session: TestSession
    private let lectorExecutable: String
    private let options: PlayerBench
    private let mpvSetup: (executable: String, plugin: String)?
    private var recording: MonitorRecording!
    private var daemon: ManagedProcess!
    private var client: PlayerClient!

    init(session: TestSession, lectorPath: String, options: PlayerBench, mpv: (executable: String, plugin: String)?) {
        self.session = session
        lectorExecutable = lectorPath
        self.options = options
        mpvSetup = mpv
    }

    func run(into results: inout BenchResults) throws {
        let bookDirectory = session.directory.appendingPathComponent("books", isDirectory: true)
        try FileManager.default.createDirectory(at: bookDirectory, withIntermediateDirectories: true)
        let books = try BookGenerator.generate(into: bookDirectory, chapters: options.chapters,
                                               bytesPerChapter: options.chapterBytes)
        results.books = books
        Log.write(String(format: "generated %d chapters, %.2f MB of prose: %@ (%.2f MB, %@), %@ (%.2f MB)",
                         books.chapters, Double(books.proseBytes) / 1_000_000, books.epub.lastPathComponent,
                         Double(books.epubFileBytes) / 1_000_000, books.compression, books.text.lastPathComponent,
                         Double(books.textFileBytes) / 1_000_000))

        recording = try session.record(sink: "lector_bench")
        daemon = try session.spawn(lectorExecutable, ["serve"])
        do {
            try session.waitForBusName(Self.lectorName, timeout: 15)
            try session.waitForBusName(Self.mprisName, timeout: 5)
        } catch {
            throw BenchError("lector serve did not take its bus names: \(error)\n\(daemon.output)")
        }
        client = try PlayerClient(destination: Self.mprisName)
        usleep(300_000)
        results.idleMemory = MemoryFigure.read(pid: daemon.pid, note: "lector serve, idle, no book opened yet")

        let timed: [Bool]
        switch options.books {
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
        Log.write(String(format: "first EPUB open (untimed): reply %.1f ms, first audio %.1f ms", coldEpub.reply, coldEpub.firstAudio))
        results.freshMemory = try memoryWhilePlaying(since: coldEpub.sound,
                                                     note: "lector serve, EPUB open and playing 3 s (first open)")
        try stopAndWait()
        if timed.contains(false) {
            let coldText = try openOnce(books.text)
            opens += 1
            text.cold = (coldText.reply, coldText.firstAudio)
            Log.write(String(format: "first text open (untimed): reply %.1f ms, first audio %.1f ms", coldText.reply, coldText.firstAudio))
            try stopAndWait()
        }

        for round in 0..<options.runs {
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
            Log.write("round \(round + 1)/\(options.runs): " + summary.joined(separator: ", ")
                      + (memory.map { ", daemon RSS/HWM " + $0.text } ?? ""))
        }
        results.open = timed.map { $0 ? epub : text } + (timed.contains(true) ? [afterOpen] : [])

        // Memory again after all the opens (a leak per open would show here), EPUB playing 3 s.
        let again = try openOnce(books.epub)
        opens += 1
        results.afterRunsMemory = try memoryWhilePlaying(
            since: again.sound, note: "lector serve, EPUB playing 3 s after \(opens) opens")

        // GetAll against lector, the EPUB playing.
        guard client.waitForStatus("Playing", timeout: 5) else { throw BenchError("lector is not Playing before GetAll") }
        results.lector.propertyCount = try client.getAllPlayerDisplay().count
        try measureGetAll(destination: Self.mprisName, into: &results.lector, label: "lector",
                          pause: { try self.client.player("Pause") },
                          isPaused: { self.client.waitForStatus("Paused", timeout: 5) })
        try client.player("Stop")
        _ = recording.waitForSilence(quiet: Self.quietBeforeRun, timeout: 10)
        try checkDaemon()

        if let mpvSetup {
            do {
                try measureMPV(mpvSetup, into: &results)
            } catch {
                results.mpv = PlayerGetAll()
                results.mpv.unavailable = "failed: \(error)"
                Log.write("mpv measurement failed: \(error)")
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
        guard let count = Int((try? client.bus.call(destination: Self.lectorName, path: Self.lectorPath,
                                                    interface: "org.freedesktop.DBus.Properties", member: "Get") {
            try $0.append(Self.narratorInterface)
            try $0.append("Book")
        }.readDisplayDictionary())?["chapter-count"] ?? ""), count > 0 else { return }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            do {
                _ = try client.bus.call(destination: Self.lectorName, path: Self.lectorPath,
                                        interface: Self.narratorInterface, member: "GetChapterText") {
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
        let uri = url.absoluteString
        do {
            _ = try client.bus.call(destination: Self.lectorName, path: Self.lectorPath,
                                    interface: Self.narratorInterface, member: "Open") { writer in
                try writer.append(uri)
                try writer.container("a", "{sv}") {
                    try writer.entry("from-start", "b") { try $0.append(true) }
                    if !play { try writer.entry("play", "b") { try $0.append(false) } }
                }
            }
        } catch {
            throw BenchError("Open \(url.lastPathComponent) failed: \(error)")
        }
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
        let status = (try? client.playerProperty("PlaybackStatus")) ?? "?"
        guard status == "Playing" else { throw BenchError("lector is \(status), not Playing, 3 s after opening") }
        return MemoryFigure.read(pid: daemon.pid, note: note)
    }

    private func checkDaemon() throws {
        guard !daemon.isRunning else { return }
        throw BenchError("lector serve (pid \(daemon.pid)) exited with status "
                         + "\(daemon.exitStatus.map(String.init) ?? "?"); its output:\n\(daemon.output)")
    }

    // MARK: - GetAll

    private func measureGetAll(destination: String, into figures: inout PlayerGetAll, label: String,
                               pause: () throws -> Void, isPaused: () -> Bool) throws {
        Log.write("\(label): \(options.getallCalls) sequential GetAll calls (playing)")
        figures.playing.sequential = try GetAllBenchmark.sequential(destination: destination, calls: options.getallCalls)
        Log.write("\(label): \(options.clients) clients for \(options.seconds) s (playing)")
        try GetAllBenchmark.concurrent(destination: destination, clients: options.clients, seconds: options.seconds,
                                       into: &figures.playing)
        try pause()
        guard isPaused() else { throw BenchError("\(label) did not pause") }
        Log.write("\(label): \(options.getallCalls) sequential GetAll calls (paused)")
        figures.paused = try GetAllBenchmark.sequential(destination: destination, calls: options.getallCalls)
    }

    private func measureMPV(_ setup: (executable: String, plugin: String), into results: inout BenchResults) throws {
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
        let mpvClient = try PlayerClient(destination: MPV.busName)
        guard mpvClient.waitForStatus("Playing", timeout: 10) else {
            throw BenchError("mpv is not Playing: \((try? mpvClient.playerProperty("PlaybackStatus")) ?? "?")\n\(mpv.output)")
        }
        let mpvRecording = try session.record(sink: "mpv_bench")
        if mpvRecording.waitForSound(after: Date(), timeout: 5) == nil {
            results.notes.append("mpv's tone was not heard on mpv_bench.monitor (it may not really be playing)")
        }
        mpvRecording.stop()
        usleep(1_000_000)
        results.mpvMemory = MemoryFigure.read(pid: mpv.pid, note: "mpv + mpv-mpris, playing a looped WAV")
        results.mpv.propertyCount = try mpvClient.getAllPlayerDisplay().count
        try measureGetAll(destination: MPV.busName, into: &results.mpv, label: "mpv",
                          pause: { try mpvClient.player("Pause") },
                          isPaused: { mpvClient.waitForStatus("Paused", timeout: 5) })
        guard mpv.isRunning else { throw BenchError("mpv exited during the benchmark:\n\(mpv.output)") }
        mpv.terminate(grace: 2)
    }
}
