import ArgumentParser
import Foundation
import LectorTestKit

/// `lector-bench`: speech latency of lector against the obvious alternatives, and what an idle
/// daemon costs the sound server. Runs entirely in private sessions (bus + PulseAudio with null sinks).
struct LectorBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lector-bench",
        abstract: "Measure lector's speech latency and idle cost in a private D-Bus + PulseAudio session.",
        discussion: """
            Latency: time from asking for speech to the first non-silent sample at a private null sink's monitor, for `lector say`, gdbus and busctl Speak calls, an in-process Speak call, the espeak-ng command line, paplay of a pre-rendered WAV (the sound path's floor) and spd-say (if installed), interleaved round by round.

            Narration yield (issue 5): with a book narrated on a second null sink, an in-process Speak -> the announcement's first sound, SpeechFinished -> narration audible again, with `lector say` and spd-say speaking the same sentence on the same sink while the book plays.

            Idle: context switches per second of the sound server with no daemon, with an idle lector and with an idle speech-dispatcher, and the lector daemon's CPU ticks while idle.

            Use a release build for figures that matter: swift build -c release && .build/release/lector-bench

            Lines starting with "BENCH " are JSON, one per metric. See docs/benchmarks.md.
            """)

    @Option(help: "Timed runs per client.") var runs = 20
    @Option(help: "The sentence to speak.") var text = "Payment received: thirty five euros twenty."
    @Option(help: "Length of each idle measurement window, in seconds.") var idleSeconds = 5.0
    @Option(help: "The lector executable (default: the one next to this executable).") var lector: String?
    @Flag(help: "Skip the idle measurement.") var skipIdle = false
    @Flag(help: "Skip the latency measurement.") var skipLatency = false
    @Flag(help: "Skip the narration-yield measurement (announcements while a book is narrated).")
    var skipNarrationYield = false

    static let build: String = {
        #if DEBUG
        return "debug"
        #else
        return "release"
        #endif
    }()

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        guard idleSeconds > 0 else { throw ValidationError("--idle-seconds must be positive") }
        guard !text.isEmpty else { throw ValidationError("--text must not be empty") }
    }

    func run() throws {
        let lectorPath = try LectorExecutable.besideThisExecutable(override: lector)
        let log: (String) -> Void = { message in
            FileHandle.standardError.write(Data("[bench] \(message)\n".utf8))
        }
        log("\(Self.build) build; lector: \(lectorPath)")

        var latency: [LatencySeries] = []
        if !skipLatency {
            let session = try TestSession()
            defer { session.shutdown() }
            do {
                latency = try LatencyBenchmark(session: session, text: text, runs: runs, lectorPath: lectorPath,
                                               log: log).run()
            } catch {
                log("latency benchmark failed: \(error)\n\(session.diagnostics)")
                throw ExitCode(1)
            }
        }
        var narrationYield: NarrationYieldResults?
        if !skipNarrationYield {
            do {
                narrationYield = try NarrationYieldBenchmark(text: text, runs: runs, lectorPath: lectorPath, log: log).run()
            } catch {
                log("narration-yield benchmark failed: \(error)")
                throw ExitCode(1)
            }
        }
        var idle: IdleResults?
        if !skipIdle {
            do {
                idle = try IdleBenchmark(text: text, seconds: idleSeconds, lectorPath: lectorPath, log: log).run()
            } catch {
                log("idle benchmark failed: \(error)")
                throw ExitCode(1)
            }
        }
        if !latency.isEmpty || idle != nil {
            Report.print(latency: latency, idle: idle, build: Self.build, text: text)
        }
        if let narrationYield { NarrationYieldReport.print(narrationYield, build: Self.build, text: text) }
    }
}
