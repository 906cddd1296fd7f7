import Foundation
import LectorTestKit

/// Open → first audio of one book, in milliseconds.
struct OpenSeries {
    let key: String
    let label: String
    /// Open call → first non-silent sample at the monitor.
    var firstAudio: [Double] = []
    /// Open call → its reply (the book parsed up to the first chapter and applied).
    var reply: [Double] = []
    var failures = 0
    /// The first open of this book in the run (untimed warm-up; the EPUB's is the daemon's first speech).
    var cold: (reply: Double, firstAudio: Double)?
}

/// VmRSS / VmHWM of /proc/PID/status, in kB.
struct MemoryFigure {
    let rssKB: Int
    let hwmKB: Int
    let note: String

    static func read(pid: Int32, note: String) -> MemoryFigure? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        var values: [String: Int] = [:]
        for line in status.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0] == "VmRSS" || parts[0] == "VmHWM" else { continue }
            values[String(parts[0])] = Int(parts[1].split(whereSeparator: \.isWhitespace).first ?? "")
        }
        guard let rss = values["VmRSS"], let hwm = values["VmHWM"] else { return nil }
        return MemoryFigure(rssKB: rss, hwmKB: hwm, note: note)
    }

    var text: String { String(format: "%.1f/%.1f MB", Double(rssKB) / 1024, Double(hwmKB) / 1024) }
}

struct PlayerGetAll {
    var playing = GetAllFigures()
    /// Sequential round trips with the player paused (no audio work competing).
    var paused: [Double] = []
    var propertyCount = 0
    var unavailable: String?
}

struct BenchResults {
    var books: GeneratedBooks?
    var open: [OpenSeries] = []
    var idleMemory: MemoryFigure?
    var freshMemory: MemoryFigure?
    var afterRunsMemory: MemoryFigure?
    var mpvMemory: MemoryFigure?
    var lector = PlayerGetAll()
    var mpv = PlayerGetAll()
    var mpvVersion: String?
    var notes: [String] = []
}

/// `rss.*`: VmRSS/VmHWM of a player.
struct MemoryRecord: Encodable {
    var metric: String
    var player: String
    var build = Build.name
    var vmrssKb: Int
    var vmhwmKb: Int
    var note: String
}

/// `getall.*`: GetAll round trips (sequential) or throughput (concurrent clients) of a player.
struct GetAllRecord: Encodable {
    var metric: String
    var player: String
    var build = Build.name
    var state: String?
    var medianUs: Double?
    var p90Us: Double?
    var p99Us: Double?
    var calls: Int?
    var properties: Int?
    var clients: Int?
    var callsPerS: Double?
    var seconds: Double?
    var errors: Int?
    var unavailable: String?
}

enum PlayerReport {
    static let openGoalMs = 150.0
    static let rssGoalMB = 40.0

    static func grouped(_ value: Double?) -> String {
        guard let value else { return "-" }
        let digits = String(Int(value.rounded()))
        var result = ""
        for (index, character) in digits.reversed().enumerated() {
            if index > 0 && index % 3 == 0 { result.append(",") }
            result.append(character)
        }
        return String(result.reversed())
    }

    private static func header(_ results: BenchResults, _ what: String, into report: inout BenchReport) {
        report.text("lector-bench \(what) (\(Build.name) build)")
        if let books = results.books {
            report.text(String(format: "book: %d chapters, %.2f MB of prose; EPUB %.2f MB (%@), text %.2f MB",
                               books.chapters, Double(books.proseBytes) / 1_000_000, Double(books.epubFileBytes) / 1_000_000,
                               books.compression, Double(books.textFileBytes) / 1_000_000))
        }
        report.text()
    }

    /// A goal table: lector's figure side by side with mpv-mpris's and the goal.
    private static func goalTable() -> TextTable {
        TextTable("metric", columns: ["lector", "mpv-mpris", "goal"], labelWidth: 50, columnWidth: 16, note: "met")
    }

    /// `lector-bench player`: open -> first audio, memory.
    static func opens(_ results: BenchResults, into report: inout BenchReport) {
        header(results, "player", into: &report)
        var table = TextTable("open -> first audio (Narrator1.Open from-start)",
                              columns: ["median", "p90", "min", "max", "runs"], labelWidth: 50)
        for series in results.open {
            table.row("  \(series.label): first audio", Summary(series.firstAudio), unit: .milliseconds,
                      note: series.failures > 0 ? "(\(series.failures) failed)" : "")
            table.row("  \(series.label): Open reply", Summary(series.reply), unit: .milliseconds)
            if let cold = series.cold {
                table.row("  \(series.label): first open in the run (untimed)",
                          text: String(format: "reply %.1fms, first audio %.1fms", cold.reply, cold.firstAudio))
            }
            var record = SeriesRecord(metric: "open_to_audio." + series.key.lowercased().replacingOccurrences(of: " ", with: "_"),
                                      label: series.label, Summary(series.firstAudio), failures: series.failures,
                                      goalMs: openGoalMs)
            record.player = "lector"
            record.replyMedianMs = figure(Summary(series.reply).median)
            record.replyP90Ms = figure(Summary(series.reply).p90)
            record.coldFirstAudioMs = figure(series.cold?.firstAudio)
            record.coldReplyMs = figure(series.cold?.reply)
            report.record(record)
        }
        report.table(table)
        memory([("rss.idle", results.idleMemory), ("rss.book_playing", results.freshMemory),
                ("rss.after_runs", results.afterRunsMemory)], player: "lector", into: &report)
        for note in results.notes { report.text("note: " + note) }

        report.text()
        var goals = goalTable()
        for series in results.open {
            let summary = Summary(series.firstAudio)
            goals.row("open -> first audio, \(series.key) (median/p90)",
                      [String(format: "%.0f/%.0f ms", summary.median ?? .nan, summary.p90 ?? .nan), "-", "<150 ms"],
                      note: summary.median.map { $0 < openGoalMs ? "yes" : "NO" } ?? "-")
        }
        if let fresh = results.freshMemory {
            goals.row("RSS with large book open (VmRSS/VmHWM)", [fresh.text, "-", "<40 MB"],
                      note: Double(fresh.rssKB) / 1024 < rssGoalMB ? "yes" : "NO")
        }
        if let after = results.afterRunsMemory {
            goals.row("RSS after all opens (VmRSS/VmHWM)", [after.text, "-", "<40 MB"],
                      note: Double(after.rssKB) / 1024 < rssGoalMB ? "yes" : "NO")
        }
        report.table(goals)
    }

    private static func memory(_ figures: [(String, MemoryFigure?)], player: String, into report: inout BenchReport) {
        guard figures.contains(where: { $0.1 != nil }) else { return }
        report.text()
        report.text("memory (VmRSS/VmHWM of /proc/PID/status)")
        for (key, figure) in figures {
            guard let figure else { continue }
            report.text("  " + TextTable.padded(figure.note, 64) + figure.text)
            report.record(MemoryRecord(metric: key, player: player, vmrssKb: figure.rssKB, vmhwmKb: figure.hwmKB,
                                       note: figure.note))
        }
    }

    /// `lector-bench get-all`: GetAll round trips and throughput, lector against mpv-mpris.
    static func getAll(_ results: BenchResults, into report: inout BenchReport) {
        header(results, "get-all", into: &report)
        var table = TextTable("Properties.GetAll(Player)", columns: ["median", "p99", "p90", "calls"], labelWidth: 50)
        for (name, player, figures) in [("lector", "lector", results.lector), ("mpv-mpris", "mpv", results.mpv)] {
            if let reason = figures.unavailable {
                table.row("  \(name)", text: reason)
                report.record(GetAllRecord(metric: "getall", player: player, unavailable: reason))
                continue
            }
            let rows: [(String, [Double])] = [
                ("\(name), playing, 1 client", figures.playing.sequential),
                ("\(name), paused, 1 client", figures.paused),
                ("\(name), playing, \(figures.playing.clients) clients (per call)", figures.playing.concurrent),
            ]
            for (label, samples) in rows where !samples.isEmpty {
                table.row("  " + label, Summary(samples), unit: .microseconds)
            }
            table.row("  \(name), playing, \(figures.playing.clients) clients: throughput",
                      text: grouped(figures.playing.callsPerSecond) + " calls/s ("
                          + "\(figures.playing.concurrentCalls) in " + String(format: "%.2f s", figures.playing.concurrentSeconds)
                          + (figures.playing.errors > 0 ? ", \(figures.playing.errors) errors: \(figures.playing.firstError ?? "")" : "")
                          + "); reply carries \(figures.propertyCount) properties")
            for (state, samples) in [("playing", figures.playing.sequential), ("paused", figures.paused)] {
                let summary = Summary(samples)
                report.record(GetAllRecord(metric: "getall.sequential", player: player, state: state,
                                           medianUs: figure(summary.median), p90Us: figure(summary.p90),
                                           p99Us: figure(summary.p99), calls: summary.count,
                                           properties: figures.propertyCount))
            }
            let concurrent = Summary(figures.playing.concurrent)
            report.record(GetAllRecord(metric: "getall.throughput", player: player, state: "playing",
                                       medianUs: figure(concurrent.median), p99Us: figure(concurrent.p99),
                                       calls: figures.playing.concurrentCalls, clients: figures.playing.clients,
                                       callsPerS: figure(figures.playing.callsPerSecond),
                                       seconds: figure(figures.playing.concurrentSeconds), errors: figures.playing.errors))
        }
        report.table(table)
        memory([("rss.playing", results.mpvMemory)], player: "mpv", into: &report)
        for note in results.notes { report.text("note: " + note) }

        report.text()
        var goals = goalTable()
        let mpvMissing = results.mpv.unavailable != nil
        let lector = Summary(results.lector.playing.sequential), mpv = Summary(results.mpv.playing.sequential)
        goals.row("GetAll round trip median / p99",
                  [String(format: "%.0f/%.0f us", lector.median ?? .nan, lector.p99 ?? .nan),
                   mpvMissing ? "-" : String(format: "%.0f/%.0f us", mpv.median ?? .nan, mpv.p99 ?? .nan), "lector faster"],
                  note: verdict(lector.median, mpv.median, lowerIsBetter: true))
        goals.row("GetAll throughput, \(results.lector.playing.clients) clients",
                  [grouped(results.lector.playing.callsPerSecond) + "/s",
                   mpvMissing ? "-" : grouped(results.mpv.playing.callsPerSecond) + "/s", "lector faster"],
                  note: verdict(results.lector.playing.callsPerSecond, results.mpv.playing.callsPerSecond, lowerIsBetter: false))
        report.table(goals)
        if mpvMissing, let reason = results.mpv.unavailable { report.text("mpv-mpris: \(reason)") }
    }

    private static func verdict(_ lector: Double?, _ mpv: Double?, lowerIsBetter: Bool) -> String {
        guard let lector, let mpv else { return "-" }
        let better = lowerIsBetter ? lector < mpv : lector > mpv
        let factor = lowerIsBetter ? mpv / lector : lector / mpv
        return better ? String(format: "yes (%.1fx)", factor) : String(format: "NO (%.2fx)", factor)
    }
}
