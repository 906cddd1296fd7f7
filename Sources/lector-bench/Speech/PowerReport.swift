import Foundation
import LectorTestKit

/// One player's figures as a record: `power.<player>` (medians over the runs).
struct PowerRecord: Encodable {
    var metric: String
    var build = Build.name
    var soundServer: String
    var words: Int
    var runs: Int
    var seconds: Double?
    var wakeupsPerS: Double?
    var serverWakeupsPerS: Double?
    var cpuSPerMinute: Double?
    /// lector only: wakeups/s of the event loop, the speech thread and the other threads.
    var eventLoopWakeupsPerS: Double?
    var speechThreadWakeupsPerS: Double?
    var otherThreadsWakeupsPerS: Double?
}

/// lector paused or stopped: `power.lector_paused`, `power.lector_stopped`.
struct PowerRestRecord: Encodable {
    var metric: String
    var build = Build.name
    var soundServer: String
    var seconds: Double?
    var wakeupsPerS: Double?
    var serverWakeupsPerS: Double?
    var cpuTicks: Int
    var sinkState: String
}

extension PowerBenchmark {
    static func report(_ results: PowerResults, into report: inout BenchReport) {
        typealias Player = PowerBenchmark.Player
        func median(_ player: Player, _ value: (PowerRun) -> Double) -> Double? {
            Summary((results.runs[player] ?? []).map(value)).median
        }
        func cell(_ value: Double?, _ format: String) -> String { value.map { String(format: format, $0) } ?? "-" }
        func ratio(_ a: Double?, _ b: Double?) -> String {
            guard let a, let b, b > 0 else { return "-" }
            return String(format: "%.2fx", a / b)
        }
        func goal(_ value: Double?, atMost limit: Double?, _ what: String) -> String {
            guard let value, let limit else { return "goal <= \(what): -" }
            return "goal <= \(what): " + (value <= limit ? "met" : "NOT MET")
        }

        let runs = results.runs[.lector]?.count ?? 0
        let players = Player.allCases.filter { results.runs[$0] != nil }
        report.text("lector-bench power (issue 16, \(Build.name) build): \(results.words) words, "
                    + String(format: "WAV %.1f s, ", results.wavSeconds)
                    + "\(runs) run\(runs == 1 ? "" : "s") each (medians), \(results.soundServer), "
                    + "null sink 48000 Hz stereo, "
                    + (results.soundServer == .pulseaudio ? "module-suspend-on-idle" : "WirePlumber suspends idle nodes"))
        let names = players.map { $0 == .before ? "before" : $0.rawValue }
        var table = TextTable("from start to end of the speech", columns: names + ["/paplay", "/espeak-ng"],
                              labelWidth: 34, columnWidth: 11)
        func row(_ label: String, _ value: (PowerRun) -> Double, _ format: String, goalAgainst: Player?) {
            let values = players.map { median($0, value) }
            let lector = median(.lector, value)
            var note = ""
            if let goalAgainst {
                note = goal(lector, atMost: median(goalAgainst, value), goalAgainst.rawValue)
            }
            table.row(label, values.map { cell($0, format) }
                      + [ratio(lector, median(.paplay, value)), ratio(lector, median(.espeak, value))], note: note)
        }
        row("own wakeups/s", \.ownPerSecond, "%.1f", goalAgainst: .paplay)
        for role in ["event loop", "speech thread", "other threads"] {
            let values = players.map { player -> String in
                guard player == .lector || player == .before else { return "" }
                return cell(median(player) { Double($0.threadSwitches[role] ?? 0) / $0.seconds }, "%.1f")
            }
            table.row("  \(role)", values + ["", ""])
        }
        row("sound server wakeups/s", \.serverPerSecond, "%.1f", goalAgainst: .paplay)
        row("CPU s per minute of audio", \.cpuPerMinute, "%.3f", goalAgainst: .espeak)
        table.row("seconds from start to end", players.map { cell(median($0, \.seconds), "%.1f") } + ["", ""])
        report.table(table)
        if !results.besideIdle.isEmpty {
            let labels = ["lector", "lector (before)"].filter { results.besideIdle[$0] != nil }
            var beside = TextTable("paplay, an idle daemon beside it", columns: ["alone"] + labels.map { $0 == "lector" ? "lector" : "before" },
                                   labelWidth: 34, columnWidth: 11)
            beside.row("paplay's own wakeups/s", [cell(median(.paplay, \.ownPerSecond), "%.1f")]
                       + labels.map { cell(results.besideIdle[$0]?.ownPerSecond, "%.1f") })
            beside.row("sound server wakeups/s", [cell(median(.paplay, \.serverPerSecond), "%.1f")]
                       + labels.map { cell(results.besideIdle[$0]?.serverPerSecond, "%.1f") })
            report.table(beside)
        }
        for (name, figure) in [("paused", results.paused), ("stopped", results.stopped)] {
            guard let figure else { continue }
            report.text(String(format: "lector %@: own %.1f wakeups/s, server %.1f wakeups/s, %d CPU ticks over %.1f s; sink %@",
                               name, Double(figure.ownSwitches) / figure.seconds, Double(figure.serverSwitches) / figure.seconds,
                               figure.cpuTicks, figure.seconds, figure.sinkState))
        }
        report.text()

        for player in players {
            let lector = player == .lector || player == .before
            report.record(PowerRecord(
                metric: "power.\(player.key)",
                soundServer: results.soundServer.rawValue, words: results.words, runs: results.runs[player]?.count ?? 0,
                seconds: figure(median(player, \.seconds)), wakeupsPerS: figure(median(player, \.ownPerSecond)),
                serverWakeupsPerS: figure(median(player, \.serverPerSecond)),
                cpuSPerMinute: figure(median(player, \.cpuPerMinute)),
                eventLoopWakeupsPerS: lector ? figure(median(player) { Double($0.threadSwitches["event loop"] ?? 0) / $0.seconds }) : nil,
                speechThreadWakeupsPerS: lector ? figure(median(player) { Double($0.threadSwitches["speech thread"] ?? 0) / $0.seconds }) : nil,
                otherThreadsWakeupsPerS: lector ? figure(median(player) { Double($0.threadSwitches["other threads"] ?? 0) / $0.seconds }) : nil))
        }
        for (label, run) in results.besideIdle.sorted(by: { $0.key < $1.key }) {
            report.record(PowerRecord(
                metric: "power.paplay_beside_idle_" + (label == "lector" ? "lector" : "lector_before"),
                soundServer: results.soundServer.rawValue, words: results.words, runs: 1,
                seconds: figure(run.seconds), wakeupsPerS: figure(run.ownPerSecond),
                serverWakeupsPerS: figure(run.serverPerSecond), cpuSPerMinute: figure(run.cpuPerMinute)))
        }
        for (name, rest) in [("paused", results.paused), ("stopped", results.stopped)] {
            guard let rest else { continue }
            report.record(PowerRestRecord(metric: "power.lector_\(name)", soundServer: results.soundServer.rawValue,
                                          seconds: figure(rest.seconds),
                                          wakeupsPerS: figure(Double(rest.ownSwitches) / rest.seconds),
                                          serverWakeupsPerS: figure(Double(rest.serverSwitches) / rest.seconds),
                                          cpuTicks: rest.cpuTicks, sinkState: rest.sinkState))
        }
    }
}
