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
    var build = ""
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

enum Report {
    static let openGoalMs = 150.0
    static let rssGoalMB = 40.0

    static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    static func number(_ value: Double?, _ format: String = "%.1f") -> String {
        value.map { String(format: format, $0) } ?? "-"
    }

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

    static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 { result += String(format: "\\u%04x", scalar.value) } else { result.unicodeScalars.append(scalar) }
            }
        }
        return result + "\""
    }

    /// One JSON object per line, prefixed so a script can `grep '^BENCH '`.
    static func machineLine(_ fields: [(String, Any?)]) -> String {
        let parts = fields.map { key, value -> String in
            let encoded: String
            switch value {
            case nil: encoded = "null"
            case let number as Double: encoded = number.isFinite ? String(format: "%.3f", number) : "null"
            case let number as Int: encoded = String(number)
            case let flag as Bool: encoded = flag ? "true" : "false"
            case let text as String: encoded = jsonString(text)
            default: encoded = jsonString("\(value!)")
            }
            return "\(jsonString(key)):\(encoded)"
        }
        return "BENCH {" + parts.joined(separator: ",") + "}"
    }

    static func print(_ results: BenchResults) {
        var lines: [String] = []
        lines.append("lector-player-bench (\(results.build) build)")
        if let books = results.books {
            lines.append(String(format: "book: %d chapters, %.2f MB of prose; EPUB %.2f MB (%@), text %.2f MB",
                                books.chapters, Double(books.proseBytes) / 1_000_000, Double(books.epubFileBytes) / 1_000_000,
                                books.compression, Double(books.textFileBytes) / 1_000_000))
        }
        lines.append("")
        lines.append(padded("open -> first audio (Narrator1.Open from-start)", 50) + padded("median", 10) + padded("p90", 10)
                     + padded("min", 10) + padded("max", 10) + "runs")
        for series in results.open {
            let audio = series.firstAudio
            lines.append(padded("  \(series.label): first audio", 50)
                         + padded(number(Percentile.of(audio, 0.5)) + "ms", 10)
                         + padded(number(Percentile.of(audio, 0.9)) + "ms", 10)
                         + padded(number(audio.min()) + "ms", 10) + padded(number(audio.max()) + "ms", 10)
                         + "\(audio.count)" + (series.failures > 0 ? " (\(series.failures) failed)" : ""))
            lines.append(padded("  \(series.label): Open reply", 50)
                         + padded(number(Percentile.of(series.reply, 0.5)) + "ms", 10)
                         + padded(number(Percentile.of(series.reply, 0.9)) + "ms", 10)
                         + padded(number(series.reply.min()) + "ms", 10) + padded(number(series.reply.max()) + "ms", 10)
                         + "\(series.reply.count)")
            if let cold = series.cold {
                lines.append(padded("  \(series.label): first open in the run (untimed)", 50)
                             + String(format: "reply %.1fms, first audio %.1fms", cold.reply, cold.firstAudio))
            }
        }
        lines.append("")
        lines.append("memory (VmRSS/VmHWM of /proc/PID/status)")
        for figure in [results.idleMemory, results.freshMemory, results.afterRunsMemory, results.mpvMemory].compactMap({ $0 }) {
            lines.append("  " + padded(figure.note, 64) + figure.text)
        }
        lines.append("")
        lines.append(padded("Properties.GetAll(Player)", 50) + padded("median", 10) + padded("p99", 10)
                     + padded("p90", 10) + "calls")
        for (name, figures) in [("lector", results.lector), ("mpv-mpris", results.mpv)] {
            if let reason = figures.unavailable {
                lines.append("  \(name): \(reason)")
                continue
            }
            let rows: [(String, [Double])] = [
                ("\(name), playing, 1 client", figures.playing.sequential),
                ("\(name), paused, 1 client", figures.paused),
                ("\(name), playing, \(figures.playing.clients) clients (per call)", figures.playing.concurrent),
            ]
            for (label, samples) in rows where !samples.isEmpty {
                lines.append(padded("  " + label, 50) + padded(number(Percentile.of(samples, 0.5), "%.0f") + "us", 10)
                             + padded(number(Percentile.of(samples, 0.99), "%.0f") + "us", 10)
                             + padded(number(Percentile.of(samples, 0.9), "%.0f") + "us", 10) + "\(samples.count)")
            }
            lines.append(padded("  \(name), playing, \(figures.playing.clients) clients: throughput", 50)
                         + grouped(figures.playing.callsPerSecond) + " calls/s ("
                         + "\(figures.playing.concurrentCalls) in " + String(format: "%.2f s", figures.playing.concurrentSeconds)
                         + (figures.playing.errors > 0 ? ", \(figures.playing.errors) errors: \(figures.playing.firstError ?? "")" : "")
                         + "); reply carries \(figures.propertyCount) properties")
        }
        for note in results.notes { lines.append("note: " + note) }

        // Summary.
        lines.append("")
        let widths = [50, 16, 16, 16]
        func row(_ cells: [String]) -> String {
            zip(cells, widths + [0]).map { padded($0, $1) }.joined().trimmingCharacters(in: .whitespaces)
        }
        lines.append(row(["metric", "lector", "mpv-mpris", "goal", "met"]))
        let mpvMissing = results.mpv.unavailable != nil
        for series in results.open {
            let median = Percentile.of(series.firstAudio, 0.5), p90 = Percentile.of(series.firstAudio, 0.9)
            lines.append(row(["open -> first audio, \(series.key) (median/p90)",
                              "\(number(median, "%.0f"))/\(number(p90, "%.0f")) ms", "-", "<150 ms",
                              median.map { $0 < openGoalMs ? "yes" : "NO" } ?? "-"]))
        }
        if let fresh = results.freshMemory {
            lines.append(row(["RSS with large book open (VmRSS/VmHWM)", fresh.text,
                              results.mpvMemory.map { $0.text } ?? "-", "<40 MB",
                              Double(fresh.rssKB) / 1024 < rssGoalMB ? "yes" : "NO"]))
        }
        if let after = results.afterRunsMemory {
            lines.append(row(["RSS after all opens (VmRSS/VmHWM)", after.text, "-", "<40 MB",
                              Double(after.rssKB) / 1024 < rssGoalMB ? "yes" : "NO"]))
        }
        let lectorMedian = Percentile.of(results.lector.playing.sequential, 0.5)
        let lectorP99 = Percentile.of(results.lector.playing.sequential, 0.99)
        let mpvMedian = Percentile.of(results.mpv.playing.sequential, 0.5)
        let mpvP99 = Percentile.of(results.mpv.playing.sequential, 0.99)
        lines.append(row(["GetAll round trip median / p99",
                          "\(number(lectorMedian, "%.0f"))/\(number(lectorP99, "%.0f")) us",
                          mpvMissing ? "-" : "\(number(mpvMedian, "%.0f"))/\(number(mpvP99, "%.0f")) us",
                          "lector faster",
                          verdict(lectorMedian, mpvMedian, lowerIsBetter: true)]))
        lines.append(row(["GetAll throughput, \(results.lector.playing.clients) clients",
                          grouped(results.lector.playing.callsPerSecond) + "/s",
                          mpvMissing ? "-" : grouped(results.mpv.playing.callsPerSecond) + "/s",
                          "lector faster",
                          verdict(results.lector.playing.callsPerSecond, results.mpv.playing.callsPerSecond,
                                  lowerIsBetter: false)]))
        if mpvMissing, let reason = results.mpv.unavailable { lines.append("mpv-mpris: \(reason)") }
        Swift.print(lines.joined(separator: "\n"))

        // Machine-readable.
        var machine: [String] = []
        for series in results.open {
            machine.append(machineLine([
                ("metric", "open_to_audio." + series.key.lowercased().replacingOccurrences(of: " ", with: "_")), ("player", "lector"), ("build", results.build),
                ("median_ms", Percentile.of(series.firstAudio, 0.5)), ("p90_ms", Percentile.of(series.firstAudio, 0.9)),
                ("min_ms", series.firstAudio.min()), ("max_ms", series.firstAudio.max()),
                ("reply_median_ms", Percentile.of(series.reply, 0.5)), ("reply_p90_ms", Percentile.of(series.reply, 0.9)),
                ("cold_first_audio_ms", series.cold?.firstAudio), ("cold_reply_ms", series.cold?.reply),
                ("runs", series.firstAudio.count), ("failures", series.failures), ("goal_ms", openGoalMs),
            ]))
        }
        for (key, figure, player) in [("rss.idle", results.idleMemory, "lector"), ("rss.book_playing", results.freshMemory, "lector"),
                                      ("rss.after_runs", results.afterRunsMemory, "lector"), ("rss.playing", results.mpvMemory, "mpv")] {
            guard let figure else { continue }
            machine.append(machineLine([("metric", key), ("player", player), ("build", results.build),
                                        ("vmrss_kb", figure.rssKB), ("vmhwm_kb", figure.hwmKB), ("note", figure.note)]))
        }
        for (player, figures) in [("lector", results.lector), ("mpv", results.mpv)] where figures.unavailable == nil {
            machine.append(machineLine([
                ("metric", "getall.sequential"), ("player", player), ("build", results.build), ("state", "playing"),
                ("median_us", Percentile.of(figures.playing.sequential, 0.5)),
                ("p90_us", Percentile.of(figures.playing.sequential, 0.9)),
                ("p99_us", Percentile.of(figures.playing.sequential, 0.99)), ("calls", figures.playing.sequential.count),
                ("properties", figures.propertyCount),
            ]))
            machine.append(machineLine([
                ("metric", "getall.sequential"), ("player", player), ("build", results.build), ("state", "paused"),
                ("median_us", Percentile.of(figures.paused, 0.5)), ("p90_us", Percentile.of(figures.paused, 0.9)),
                ("p99_us", Percentile.of(figures.paused, 0.99)), ("calls", figures.paused.count),
            ]))
            machine.append(machineLine([
                ("metric", "getall.throughput"), ("player", player), ("build", results.build), ("state", "playing"),
                ("clients", figures.playing.clients), ("calls_per_s", figures.playing.callsPerSecond),
                ("calls", figures.playing.concurrentCalls), ("seconds", figures.playing.concurrentSeconds),
                ("median_us", Percentile.of(figures.playing.concurrent, 0.5)),
                ("p99_us", Percentile.of(figures.playing.concurrent, 0.99)), ("errors", figures.playing.errors),
            ]))
        }
        if let reason = results.mpv.unavailable {
            machine.append(machineLine([("metric", "getall"), ("player", "mpv"), ("build", results.build),
                                        ("unavailable", reason)]))
        }
        Swift.print(machine.joined(separator: "\n"))
    }

    private static func verdict(_ lector: Double?, _ mpv: Double?, lowerIsBetter: Bool) -> String {
        guard let lector, let mpv else { return "-" }
        let better = lowerIsBetter ? lector < mpv : lector > mpv
        let factor = lowerIsBetter ? mpv / lector : lector / mpv
        return better ? String(format: "yes (%.1fx)", factor) : String(format: "NO (%.2fx)", factor)
    }
}
