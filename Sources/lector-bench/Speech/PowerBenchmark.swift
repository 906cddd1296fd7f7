import Foundation
import LectorInterface
import LectorTestKit
#if canImport(Glibc)
import Glibc
#endif

/// What narration costs a laptop (issue 16): the same text read by lector (a one-chapter book,
/// narrated to its end), played by `paplay` as a WAV that `espeak-ng -w` made of it, and spoken
/// by `espeak-ng` itself, one after the other on one private sound server, each from start to end.
///
/// Like the idle benchmark, the session has no kit sinks (the kit's 5 ms keep-awake recorder would
/// make the server render every 5 ms whatever the players do): one null sink in a laptop's format
/// (48 kHz stereo) and module-suspend-on-idle are loaded with pactl, and nothing records. Before
/// each player the sink is let suspend, and nothing touches the server during the measurement.
///
/// Figures, from start to end of each player's speech:
/// - own wakeups/s: voluntary + involuntary context switches of all the player's threads. lector is
///   a running daemon: the sum over /proc/PID/task/*/status, before and after (broken down by
///   thread); paplay and espeak-ng: their whole life, from wait4's rusage.
/// - server wakeups/s: the same sum over the sound server's processes (pulseaudio; or pipewire,
///   pipewire-pulse and wireplumber).
/// - CPU seconds per minute of audio: utime + stime over the same time, divided by its minutes.
/// Then paplay once more beside an idle daemon (what lector costs other apps while it does
/// nothing), and lector paused and stopped: its wakeups and the server's over a window, and the
/// sink's state.
final class PowerBenchmark {
    static let sink = "lector_power"

    private let words: Int
    private let runs: Int
    private let window: Double
    private let lectorPath: String
    /// Another lector binary (e.g. a build from before a change), measured in the same rounds.
    private let beforePath: String?
    private let soundServer: SoundServerKind
    private let log: Log

    init(words: Int, runs: Int, window: Double, lectorPath: String, beforePath: String?, soundServer: SoundServerKind,
         log: Log) {
        self.words = words
        self.runs = runs
        self.window = window
        self.lectorPath = lectorPath
        self.beforePath = beforePath
        self.soundServer = soundServer
        self.log = log
    }

    enum Player: String, CaseIterable {
        case lector
        case before = "lector (before)"
        case paplay
        case espeak = "espeak-ng"

        var key: String {
            switch self {
            case .lector: return "lector"
            case .before: return "lector_before"
            case .paplay: return "paplay"
            case .espeak: return "espeak_ng"
            }
        }
    }

    func run() throws -> PowerResults {
        let session = try BenchSession.start(sinks: [], soundServer: soundServer, log: log)
        defer { session.shutdown() }
        var results = PowerResults(words: words, soundServer: soundServer)

        try session.pactl(["load-module", "module-null-sink", "sink_name=\(Self.sink)", "rate=48000", "channels=2",
                           "sink_properties=device.description=\(Self.sink)"])
        try session.pactl(["set-default-sink", Self.sink])
        if soundServer == .pulseaudio {
            try session.pactl(["load-module", "module-suspend-on-idle", "timeout=1"])
        }
        let serverProcesses = serverPIDs(session)
        guard !serverProcesses.isEmpty else { throw BenchError("cannot find the session's sound server processes") }
        log("power: \(soundServer.rawValue) pids \(serverProcesses), null sink \(Self.sink) 48000 Hz stereo")

        // The text, the book and the WAV.
        let text = Self.prose(words: words)
        let textFile = session.directory.appendingPathComponent("power-text.txt")
        try text.write(to: textFile, atomically: true, encoding: .utf8)
        let book = session.directory.appendingPathComponent("power-book.txt")
        try text.write(to: book, atomically: true, encoding: .utf8)
        let wav = session.directory.appendingPathComponent("power.wav")
        let rendered = try session.run("espeak-ng", ["-w", wav.path, "-f", textFile.path], timeout: 120)
        guard rendered.succeeded else { throw BenchError("espeak-ng -w failed: \(rendered)") }
        let wavBytes = (try? FileManager.default.attributesOfItem(atPath: wav.path)[.size] as? Int) ?? 0
        results.wavSeconds = Double(max(0, wavBytes - 44)) / Double(22050 * 2)
        log(String(format: "power: %d words, WAV %.1f s", words, results.wavSeconds))

        let recorder = try SignalRecorder(rules: ["type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'"])
        defer { recorder.stop() }
        let players = Player.allCases.filter { $0 != .before || beforePath != nil }
        for round in 0..<runs {
            for player in players.rotated(by: round) {
                let run: PowerRun
                switch player {
                case .lector, .before:
                    let path = player == .lector ? lectorPath : beforePath!
                    let daemon = try startDaemon(session, path)
                    defer { daemon.terminate(grace: 3) }
                    try settle(session, player, round)
                    run = try measureLector(daemon: daemon.pid, book: book, recorder: recorder,
                                            server: serverProcesses, expectedSeconds: results.wavSeconds)
                    guard daemon.isRunning else { throw BenchError("lector serve exited:\n\(daemon.output)") }
                case .paplay:
                    try settle(session, player, round)
                    run = try measureProcess(session, "paplay", [wav.path], server: serverProcesses,
                                             expectedSeconds: results.wavSeconds)
                case .espeak:
                    try settle(session, player, round)
                    run = try measureProcess(session, "espeak-ng", ["-f", textFile.path], server: serverProcesses,
                                             expectedSeconds: results.wavSeconds)
                }
                log("power round \(round + 1) \(player.rawValue): " + run.summary)
                results.runs[player, default: []].append(run)
            }
        }

        // paplay again, an idle lector beside it (it has announced once): what lector costs other
        // apps while it does nothing. PulseAudio runs a sink at the lowest latency any stream on it
        // asks for, corked ones included.
        for (label, path) in [("lector", lectorPath), ("lector (before)", beforePath)] {
            guard let path else { continue }
            let daemon = try startDaemon(session, path)
            defer { daemon.terminate(grace: 3) }
            let said = try session.run(path, ["say", "--wait", "Beside."], timeout: 30)
            if !said.succeeded { log("power: lector say --wait failed: \(said)") }
            try settle(session, .paplay, runs - 1)
            let run = try measureProcess(session, "paplay", [wav.path], server: serverProcesses,
                                         expectedSeconds: results.wavSeconds)
            log("power: paplay beside an idle \(label): " + run.summary)
            results.besideIdle[label] = run
        }

        // Paused, then stopped: nothing should wake, and the sink should suspend.
        let daemon = try startDaemon(session, lectorPath)
        defer { daemon.terminate(grace: 3) }
        results.paused = try measureLectorAtRest(session, daemon: daemon.pid, book: book, server: serverProcesses, pausing: true)
        results.stopped = try measureLectorAtRest(session, daemon: daemon.pid, book: book, server: serverProcesses, pausing: false)
        if !daemon.isRunning { throw BenchError("lector serve exited:\n\(daemon.output)") }
        return results
    }

    /// `lector serve` with its log on stderr (kept in the session's logs), once it owns its names.
    private func startDaemon(_ session: TestSession, _ path: String) throws -> ManagedProcess {
        let daemon = try session.spawn(path, ["serve"], extraEnvironment: ["LECTOR_LOG": "stderr"])
        try session.waitForBusName(MPRISNames.service, timeout: 15)
        return daemon
    }

    /// The sink suspended and everything quiet before a player starts.
    private func settle(_ session: TestSession, _ player: Player, _ round: Int) throws {
        if !waitForSinkState(session, "SUSPENDED", timeout: 8) {
            log("power: the sink did not suspend before \(player.rawValue) (\(sinkState(session)))")
        }
        Thread.sleep(forTimeInterval: 0.5)
        log("power round \(round + 1): \(player.rawValue) ...")
    }

    // MARK: - players

    /// Open from the start, until PlaybackStatus goes Stopped at the end of the book.
    private func measureLector(daemon: Int32, book: URL, recorder: SignalRecorder,
                               server: [Int32], expectedSeconds: Double) throws -> PowerRun {
        let client = try BusClient()
        let mark = recorder.count
        let before = try counters(daemon), serverBefore = serverSwitches(server)
        let start = Date()
        try client.open(book, options: ["from-start": true])
        let timeout = expectedSeconds * 2 + 60
        guard recorder.wait(after: mark, timeout: timeout, for: { $0.changed["PlaybackStatus"] == "Stopped" }) != nil else {
            throw BenchError("lector did not reach the end of the book within \(Int(timeout)) s")
        }
        let end = Date()
        let after = try counters(daemon), serverAfter = serverSwitches(server)
        let seconds = end.timeIntervalSince(start)
        var threads: [String: Int] = [:]
        let perThread = after.switchesPerThread(since: before)
        // Builds that do not name their speech thread: it is the first one the daemon starts.
        let speech = perThread.first { $0.name == "lector-espeak" }?.tid ?? perThread.first { $0.tid != daemon }?.tid
        for thread in perThread {
            let role = thread.tid == daemon ? "event loop" : thread.tid == speech ? "speech thread" : "other threads"
            threads[role, default: 0] += thread.switches
        }
        log("lector threads (switches, of which involuntary): "
            + perThread.map { "\($0.tid) \($0.name) \($0.switches) (\($0.involuntary))" }.joined(separator: ", "))
        return PowerRun(seconds: seconds, ownSwitches: threads.values.reduce(0, +),
                        serverSwitches: serverAfter - serverBefore,
                        cpuSeconds: Double(after.cpuTicks - before.cpuTicks) / Double(ProcessCounters.ticksPerSecond),
                        threadSwitches: threads)
    }

    /// A client process from spawn to exit: its whole life from wait4's rusage.
    private func measureProcess(_ session: TestSession, _ executable: String, _ arguments: [String],
                                server: [Int32], expectedSeconds: Double) throws -> PowerRun {
        let serverBefore = serverSwitches(server)
        let start = Date()
        let process = try session.spawn(executable, arguments)
        guard let status = process.waitForExit(timeout: expectedSeconds * 2 + 60) else {
            process.terminate(grace: 1)
            throw BenchError("\(executable) did not finish")
        }
        let end = Date()
        let serverAfter = serverSwitches(server)
        guard status == 0 else { throw BenchError("\(executable) failed (\(status)):\n\(process.output)") }
        guard let usage = process.resourceUsage else { throw BenchError("no resource usage for \(executable)") }
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        log("\(executable): \(usage.ru_nvcsw + usage.ru_nivcsw) switches, of which involuntary \(usage.ru_nivcsw)")
        return PowerRun(seconds: end.timeIntervalSince(start), ownSwitches: usage.ru_nvcsw + usage.ru_nivcsw,
                        serverSwitches: serverAfter - serverBefore, cpuSeconds: cpu, threadSwitches: [:])
    }

    /// Plays 3 s, then pauses (or stops), lets the sink suspend and measures a quiet window.
    private func measureLectorAtRest(_ session: TestSession, daemon: Int32, book: URL,
                                     server: [Int32], pausing: Bool) throws -> RestFigure {
        let client = try BusClient()
        try client.open(book, options: ["from-start": true])
        Thread.sleep(forTimeInterval: 3)
        try client.player(pausing ? "Pause" : "Stop")
        let suspended = waitForSinkState(session, "SUSPENDED", timeout: 8)
        Thread.sleep(forTimeInterval: 0.5)
        let before = try counters(daemon), serverBefore = serverSwitches(server)
        let start = Date()
        Thread.sleep(forTimeInterval: window)
        let after = try counters(daemon), serverAfter = serverSwitches(server)
        let seconds = Date().timeIntervalSince(start)
        let state = sinkState(session)
        if pausing { try client.player("Stop") }
        return RestFigure(seconds: seconds, ownSwitches: after.switchesPerThread(since: before).map(\.switches).reduce(0, +),
                          serverSwitches: serverAfter - serverBefore,
                          cpuTicks: after.cpuTicks - before.cpuTicks,
                          sinkState: suspended ? state : "\(state) (did not suspend within 8 s)")
    }

    // MARK: - counters

    private func counters(_ pid: Int32) throws -> ProcessCounters {
        guard let counters = ProcessCounters.read(pid: pid) else { throw BenchError("cannot read /proc/\(pid)") }
        return counters
    }

    private func serverSwitches(_ pids: [Int32]) -> Int {
        pids.compactMap { ProcessCounters.read(pid: $0)?.contextSwitches }.reduce(0, +)
    }

    private func serverPIDs(_ session: TestSession) -> [Int32] {
        switch soundServer {
        case .pulseaudio: return session.sessionProcesses(named: "pulseaudio")
        case .pipewire:
            return ["pipewire", "pipewire-pulse", "wireplumber"].flatMap { session.sessionProcesses(named: $0) }
        }
    }

    // MARK: - the sink

    private func sinkState(_ session: TestSession) -> String {
        guard let listing = try? session.pactl(["list", "short", "sinks"], timeout: 5) else { return "?" }
        for line in listing.split(separator: "\n") {
            let columns = line.split(separator: "\t")
            if columns.count >= 2, columns[1] == Self.sink { return String(columns.last!) }
        }
        return "?"
    }

    private func waitForSinkState(_ session: TestSession, _ state: String, timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if sinkState(session) == state { return true }
            Thread.sleep(forTimeInterval: 0.2)
        }
        return sinkState(session) == state
    }

    // MARK: - the text

    /// About `words` words of deterministic prose in paragraphs (the same every run).
    static func prose(words: Int) -> String {
        var generator = ProseGenerator(seed: 0x16_90e5_50ff_1ce5)
        var paragraphs: [String] = []
        var count = 0
        while count < words {
            let paragraph = generator.paragraph()
            paragraphs.append(paragraph)
            count += paragraph.split(separator: " ").count
        }
        return paragraphs.joined(separator: "\n\n") + "\n"
    }
}

/// One player's figures from the start to the end of its speech.
struct PowerRun {
    let seconds: Double
    let ownSwitches: Int
    let serverSwitches: Int
    let cpuSeconds: Double
    /// lector only: its switches by thread role ("event loop", "speech thread", "other threads").
    let threadSwitches: [String: Int]

    var ownPerSecond: Double { Double(ownSwitches) / seconds }
    var serverPerSecond: Double { Double(serverSwitches) / seconds }
    var cpuPerMinute: Double { cpuSeconds / seconds * 60 }

    var summary: String {
        String(format: "%.1f s, own %.1f wakeups/s, server %.1f wakeups/s, CPU %.3f s/min", seconds, ownPerSecond,
               serverPerSecond, cpuPerMinute)
            + (threadSwitches.isEmpty ? "" : " (" + threadSwitches.sorted { $0.key < $1.key }
                .map { String(format: "%@ %.1f/s", $0.key, Double($0.value) / seconds) }.joined(separator: ", ") + ")")
    }
}

/// lector paused or stopped: a quiet window.
struct RestFigure {
    let seconds: Double
    let ownSwitches: Int
    let serverSwitches: Int
    let cpuTicks: Int
    let sinkState: String
}

struct PowerResults {
    let words: Int
    let soundServer: SoundServerKind
    var wavSeconds: Double = 0
    var runs: [PowerBenchmark.Player: [PowerRun]] = [:]
    var paused: RestFigure?
    var stopped: RestFigure?
    /// paplay played beside an idle daemon, by the daemon's label ("lector", "lector (before)").
    var besideIdle: [String: PowerRun] = [:]
}

extension Array {
    func rotated(by steps: Int) -> [Element] {
        guard !isEmpty else { return self }
        let shift = steps % count
        return Array(self[shift...] + self[..<shift])
    }
}
