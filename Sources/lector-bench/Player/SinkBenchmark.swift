import ArgumentParser
import Foundation
import LectorInterface
import LectorTestKit

/// Issue 23's figures at the sink, where the listener meets them: open → first audio, pause →
/// silence and play → sound at each player's sink monitor, lector reading a generated EPUB
/// against mpv + mpv-mpris opening a WAV, both driven by the same `playerctl` commands, their
/// trials interleaved. In-process figures stop before the sound server and missed what the 8-s
/// narration buffer did to pause at the sink.
struct Sink: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open, pause and play at the sink's monitor: lector against mpv + mpv-mpris (issue 23).",
        discussion: """
            Needs mpv and mpv-mpris (apt-get install mpv mpv-mpris). Each player has its own null
            sink; every figure is from before playerctl starts to the first (or last) sample above
            the speech threshold on that sink's monitor, so both include the same client start.
            The "floor" rows take the first (last) sample above the noise floor instead: the
            monitor of a corked stream is digital silence, and speech that resumes in a quiet
            consonant would otherwise count as late (mpv plays a tone, the same either way).
            The last column is lector's median minus mpv's with a 95 % interval (a bootstrap
            over trials, each lector trial paired with the mpv trial beside it): an interval
            that spans 0 means this run cannot tell the two apart.

            Example:
              lector-bench sink --runs 20
            """)

    @OptionGroup var common: CommonOptions
    @Option(help: "Trials per player (interleaved, alternating which goes first).") var runs = 15
    @Option(help: "Pauses and plays per trial.") var pauses = 3
    @Option(help: "parec's latency on each monitor (ms): the null sink renders this far ahead, so samples are dated up to this early (at 5 ms, sound was dated before Play reached the player).")
    var monitorLatency = PauseAndPlay.monitorLatency
    @Option(help: "The mpv-mpris plugin (default: /usr/lib/mpv-mpris/mpris.so, /etc/mpv/scripts/mpris.so, ...).")
    var mpvMpris: String?

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        guard pauses >= 1 else { throw ValidationError("--pauses must be at least 1") }
    }

    func run() throws {
        let log = Log(tag: "sink")
        let lector = try common.lectorPath(log)
        guard let mpv = MPV.executable(searchPath: ProcessInfo.processInfo.environment["PATH"]),
              let plugin = MPV.plugin(explicit: mpvMpris) else {
            log("no mpv or mpv-mpris: " + MPV.installHint)
            throw ExitCode(1)
        }
        let session = try BenchSession.start(sinks: ["lector_bench", "mpv_bench"], log: log)
        defer { session.shutdown() }
        let directory = session.directory.appendingPathComponent("sink", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let books = try BookGenerator.generate(into: directory, chapters: 20, bytesPerChapter: 13_500)
        let tone = directory.appendingPathComponent("tone.wav")
        try MPV.writeTone(to: tone, seconds: 30)

        let players = [
            Trial(name: "lector", uri: books.epub.absoluteString, recording: try session.record(sink: "lector_bench", latencyMilliseconds: monitorLatency), pauses: pauses),
            Trial(name: "mpv", uri: tone.absoluteString, recording: try session.record(sink: "mpv_bench", latencyMilliseconds: monitorLatency), pauses: pauses),
        ]
        let daemon = try session.spawn(lector, ["serve"])
        let player = try session.spawn(mpv, ["--no-config", "--idle=yes", "--no-video", "--ao=pulse",
                                             "--audio-device=pulse/mpv_bench", "--load-scripts=no",
                                             "--script=\(plugin)", "--no-terminal"])
        do {
            try session.waitForBusName(MPRISNames.service, timeout: 15)
            try session.waitForBusName(MPV.busName, timeout: 15)
        } catch {
            log("players did not start: \(error)\n\(daemon.output)\n\(player.output)")
            throw ExitCode(1)
        }
        Thread.sleep(forTimeInterval: 0.5)
        let rows = [("open -> first audio", "open"), ("pause -> silence", "pause"), ("play -> sound", "play"),
                    ("pause -> silence, floor", "pauseFloor"), ("play -> sound, floor", "playFloor")]
        // Per player and figure, one list per trial: trial i of each player ran side by side.
        var figures: [String: [String: [[Double]]]] = [:]
        for index in 0..<runs {
            for trial in index % 2 == 0 ? players : players.reversed() {
                let measured = try trial.measure(session, log: log)
                for (_, key) in rows { figures[trial.name, default: [:]][key, default: []].append(measured[key] ?? []) }
            }
        }
        var report = BenchReport()
        let version = (try? session.run(mpv, ["--version"]))?.stdout.split(separator: "\n").first.map(String.init) ?? "mpv"
        report.text("lector-bench sink (\(Build.name) build): \(runs) trials each, interleaved, \(pauses) pauses each; \(version) with mpv-mpris")
        var table = TextTable("at the sink's monitor, median (p90) ms", columns: ["lector", "mpv", "lector/mpv"],
                              labelWidth: 34, columnWidth: 14, note: "lector-mpv [95%]")
        for (label, key) in rows {
            let ourTrials = figures["lector"]?[key] ?? [], theirTrials = figures["mpv"]?[key] ?? []
            let ours = Summary(ourTrials.flatMap { $0 }), theirs = Summary(theirTrials.flatMap { $0 })
            let cell = { (summary: Summary) in
                summary.median.map { String(format: "%.1f (%.1f)", $0, summary.p90 ?? .nan) } ?? "-"
            }
            let ratio = ours.median.flatMap { a in theirs.median.map { String(format: "%.2f", a / $0) } } ?? "-"
            // The interval says whether "≤ mpv" is decided by this run or within its spread.
            let difference = Summary.medianDifference(ourTrials, theirTrials)
            let interval = difference.map { String(format: "%+.2f [%+.2f, %+.2f]", $0.difference, $0.low, $0.high) } ?? "-"
            table.row(label, [cell(ours), cell(theirs), ratio], note: interval)
            report.record(SinkRecord(metric: "sink.\(key)", lector: ours.median, mpv: theirs.median,
                                     lectorP90: ours.p90, mpvP90: theirs.p90, runs: ours.count,
                                     differenceLow: difference?.low, differenceHigh: difference?.high))
        }
        report.table(table)
        report.print()
    }

    /// One player's open, pause and play, timed at its own sink.
    struct Trial {
        let name: String
        let uri: String
        let recording: MonitorRecording
        let pauses: Int

        func measure(_ session: TestSession, log: Log) throws -> [String: [Double]] {
            var result: [String: [Double]] = [:]
            guard recording.waitForSilence(quiet: 0.5, timeout: 10) else {
                log("\(name): not silent before the trial")
                return result
            }
            let open = Date()
            _ = try session.run("playerctl", ["-p", name, "open", uri])
            guard let heard = recording.waitForSound(after: open, timeout: 10) else {
                log("\(name): nothing heard after open")
                return result
            }
            result["open"] = [heard.timeIntervalSince(open) * 1000]
            Thread.sleep(forTimeInterval: 1)
            for _ in 0..<pauses {
                try PauseAndPlay.measure(name, in: session, recording: recording).record(into: &result)
                Thread.sleep(forTimeInterval: 0.6)
            }
            Thread.sleep(forTimeInterval: 0.5)
            _ = try session.run("playerctl", ["-p", name, "stop"])
            return result
        }
    }
}

struct SinkRecord: Encodable {
    var metric: String
    var build = Build.name
    var lector: Double?
    var mpv: Double?
    var lectorP90: Double?
    var mpvP90: Double?
    var runs: Int
    /// The 95 % bootstrap interval of the median difference lector - mpv, ms.
    var differenceLow: Double?
    var differenceHigh: Double?
}
