import ArgumentParser
import Foundation
import LectorTestKit

/// `lector-bench`: every benchmark of lector, and the test kit's sound-server probe, as
/// subcommands of one executable. Each benchmark runs in private sessions of the test kit
/// (`TestSession`: a private dbus-daemon and sound server with null sinks) and prints one
/// `BenchReport`. Without a subcommand it runs `suite` (latency, narration yield, idle).
struct LectorBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lector-bench",
        abstract: "Measure lector in private D-Bus + PulseAudio sessions (docs/benchmarks.md).",
        discussion: """
            Lines starting with "BENCH " are JSON, one per metric. Use a release build for figures that matter:
              swift build -c release      (lector-bench, lector and the lectord and lector-view it runs beside it)
            """,
        subcommands: [Suite.self, Latency.self, Idle.self, NarrationYield.self, Power.self, Player.self, GetAll.self,
                      Policy.self, ReadAlong.self, Neural.self, Soak.self, BigText.self, Memory.self, Sink.self, Startup.self, PulseProbe.self],
        defaultSubcommand: Suite.self)
}

/// Options every benchmark takes.
struct CommonOptions: ParsableArguments {
    @Option(help: "The lector executable (default: the one next to this executable).") var lector: String?

    func lectorPath(_ log: Log) throws -> String {
        let path = try LectorExecutable.besideThisExecutable(override: lector)
        log("\(Build.name) build; lector: \(path)")
        return path
    }
}

/// Options of the speech benchmarks (latency, narration yield, idle).
struct SpeechOptions: ParsableArguments {
    @Option(help: "Timed runs per client.") var runs = 20
    @Option(help: "The sentence to speak.") var text = "Payment received: thirty five euros twenty."
    @Option(help: "Cold starts of each (latency only): lector say with the daemon activated against spd-say autospawning its server; 0 skips them.")
    var coldRuns = 5

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        guard coldRuns >= 0 else { throw ValidationError("--cold-runs must not be negative") }
        guard !text.isEmpty else { throw ValidationError("--text must not be empty") }
    }

    /// One speech benchmark on its own: `measure`, then its report.
    static func runAlone(_ common: CommonOptions, _ speech: SpeechOptions,
                         _ measure: (SpeechOptions, String, Log, inout BenchReport) throws -> Void) throws {
        let log = Log(tag: "bench")
        var report = BenchReport()
        try measure(speech, try common.lectorPath(log), log, &report)
        report.print()
    }
}

/// What `lector-bench` ran before it had subcommands: latency, narration yield and idle, one
/// after the other, in that order, each in its own private session.
struct Suite: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Latency, narration yield and idle cost, one after the other (the default).")

    @OptionGroup var common: CommonOptions
    @OptionGroup var speech: SpeechOptions
    @Option(help: "Length of each idle measurement window, in seconds.") var idleSeconds = 5.0
    @Flag(help: "Skip the idle measurement.") var skipIdle = false
    @Flag(help: "Skip the latency measurement.") var skipLatency = false
    @Flag(help: "Skip the narration-yield measurement (announcements while a book is narrated).")
    var skipNarrationYield = false

    func validate() throws {
        guard idleSeconds > 0 else { throw ValidationError("--idle-seconds must be positive") }
    }

    func run() throws {
        let log = Log(tag: "bench")
        let lectorPath = try common.lectorPath(log)
        var report = BenchReport()
        if !skipLatency {
            try Latency.measure(speech, lectorPath: lectorPath, log: log, into: &report)
        }
        if !skipNarrationYield {
            try NarrationYield.measure(speech, lectorPath: lectorPath, log: log, into: &report)
        }
        if !skipIdle {
            try Idle.measure(text: speech.text, seconds: idleSeconds, lectorPath: lectorPath, log: log, into: &report)
        }
        report.print()
    }
}

struct Latency: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Time from asking for speech to the first sound, for lector and the alternatives.",
        discussion: """
            The first non-silent sample at a private null sink's monitor, for `lector say`, gdbus and busctl Speak calls, an in-process Speak call (LectorBus), the espeak-ng command line, paplay of a pre-rendered WAV (the sound path's floor) and spd-say (if installed), interleaved round by round. Then cold starts: lector say with the daemon started by D-Bus activation against spd-say autospawning speech-dispatcher, alternating.
            """)

    @OptionGroup var common: CommonOptions
    @OptionGroup var speech: SpeechOptions

    func run() throws { try SpeechOptions.runAlone(common, speech, Self.measure) }

    static func measure(_ speech: SpeechOptions, lectorPath: String, log: Log, into report: inout BenchReport) throws {
        let session = try BenchSession.start(log: log)
        defer { session.shutdown() }
        do {
            let series = try LatencyBenchmark(session: session, text: speech.text, runs: speech.runs,
                                              coldRuns: speech.coldRuns, lectorPath: lectorPath, log: log).run()
            LatencyBenchmark.report(series, text: speech.text, into: &report)
        } catch {
            log("latency benchmark failed: \(error)\n\(session.diagnostics)")
            throw ExitCode(1)
        }
    }
}

struct Idle: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sound-server wakeups and daemon CPU while lector (and speech-dispatcher) sit idle.")

    @OptionGroup var common: CommonOptions
    @Option(help: "The sentence spoken once before the idle window.") var text = "Payment received: thirty five euros twenty."
    @Option(help: "Length of each idle measurement window, in seconds.") var idleSeconds = 5.0

    func validate() throws {
        guard idleSeconds > 0 else { throw ValidationError("--idle-seconds must be positive") }
    }

    func run() throws {
        let log = Log(tag: "bench")
        var report = BenchReport()
        try Self.measure(text: text, seconds: idleSeconds, lectorPath: try common.lectorPath(log), log: log, into: &report)
        report.print()
    }

    static func measure(text: String, seconds: Double, lectorPath: String, log: Log,
                        into report: inout BenchReport) throws {
        do {
            let results = try IdleBenchmark(text: text, seconds: seconds, lectorPath: lectorPath, log: log).run()
            IdleBenchmark.report(results, into: &report)
        } catch {
            log("idle benchmark failed: \(error)")
            throw ExitCode(1)
        }
    }
}

struct NarrationYield: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "narration-yield",
        abstract: "Announcements while a book is narrated: Speak -> sound, SpeechFinished -> narration again (issue 5).")

    @OptionGroup var common: CommonOptions
    @OptionGroup var speech: SpeechOptions

    func run() throws { try SpeechOptions.runAlone(common, speech, Self.measure) }

    static func measure(_ speech: SpeechOptions, lectorPath: String, log: Log, into report: inout BenchReport) throws {
        do {
            let results = try NarrationYieldBenchmark(text: speech.text, runs: speech.runs, lectorPath: lectorPath,
                                                      log: log).run()
            NarrationYieldReport.report(results, text: speech.text, into: &report)
        } catch {
            log("narration-yield benchmark failed: \(error)")
            throw ExitCode(1)
        }
    }
}

struct Power: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Wakeups and CPU while narrating, side by side with paplay and espeak-ng on the same text (issue 16).",
        discussion: """
            The same prose read by lector (a one-chapter book, from start to end), played by paplay as a WAV made by espeak-ng -w, and spoken by espeak-ng, on a private sound server with one null sink and nothing recording: own wakeups/s (context switches of all threads), the sound server's wakeups/s, CPU seconds per minute of audio; then paplay again with an idle lector beside it, and lector paused and stopped.
            """)

    @OptionGroup var common: CommonOptions
    @Option(help: "Words of prose to read (about 2.5 words a second).") var words = 300
    @Option(help: "Rounds; each round runs every player once, in rotated order.") var runs = 1
    @Option(help: "Seconds of the paused and stopped windows.") var window = 5.0
    @Option(help: "pulseaudio or pipewire (default: LECTOR_TEST_SOUND_SERVER, else pulseaudio).") var soundServer: String?
    @Option(help: "Another lector executable (e.g. a build from before a change), measured in the same rounds.")
    var before: String?

    func validate() throws {
        guard words >= 10 else { throw ValidationError("--words must be at least 10") }
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        guard window > 0 else { throw ValidationError("--window must be positive") }
        if let soundServer, SoundServerKind(rawValue: soundServer) == nil {
            throw ValidationError("--sound-server must be pulseaudio or pipewire")
        }
    }

    func run() throws {
        let log = Log(tag: "bench")
        var report = BenchReport()
        let kind = try soundServer.flatMap { SoundServerKind(rawValue: $0) } ?? SoundServerKind.fromEnvironment()
        do {
            let results = try PowerBenchmark(words: words, runs: runs, window: window, lectorPath: try common.lectorPath(log),
                                             beforePath: before, soundServer: kind, log: log).run()
            PowerBenchmark.report(results, into: &report)
        } catch {
            log("power benchmark failed: \(error)")
            throw ExitCode(1)
        }
        report.print()
    }
}

/// Starting a private session, in one place: the test kit's `TestSession` (private dbus-daemon
/// and sound server with null sinks), and this process's environment pointed at it, so that
/// in-process clients (sd-bus, libpulse) connect there and never to the real desktop's.
enum BenchSession {
    static func start(sinks: [String] = ["lector_test"], soundServer: SoundServerKind? = nil,
                      log: Log? = nil) throws -> TestSession {
        let session = try TestSession(sinks: sinks, soundServer: soundServer)
        for key in ProcessInfo.processInfo.environment.keys
        where key.hasPrefix("PULSE_") && session.environment[key] == nil {
            unsetenv(key)
        }
        for key in ["DBUS_SESSION_BUS_ADDRESS", "PULSE_SERVER", "HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME",
                    "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"] {
            if let value = session.environment[key] { setenv(key, value, 1) }
        }
        log?("session \(session.directory.lastPathComponent): bus \(session.busAddress)")
        return session
    }
}
