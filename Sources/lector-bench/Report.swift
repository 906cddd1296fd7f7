import Foundation
import LectorTestKit

/// The one report every subcommand prints: its tables and notes on stdout, then one line per
/// record, `BENCH ` and the record as JSON (JSONEncoder, snake_case keys, absent when unknown), so
/// a script can `grep '^BENCH ' | cut -c7- | jq ...`.
struct BenchReport {
    private var lines: [String] = []
    private var records: [String] = []

    mutating func text(_ line: String = "") { lines.append(line) }
    mutating func text(_ more: [String]) { lines += more }
    mutating func table(_ table: TextTable) { lines += table.lines }

    mutating func record<Record: Encodable>(_ record: Record) {
        do {
            records.append("BENCH " + String(decoding: try Self.encoder.encode(record), as: UTF8.self))
        } catch {
            lines.append("note: could not encode a record: \(error)")
        }
    }

    func print() {
        Swift.print((lines + [""] + records).joined(separator: "\n"))
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

/// The one table printer: a label column, then figures side by side (right-aligned), then an
/// optional note (a goal and whether it was met, failures). A row with no figures says why.
struct TextTable {
    let labelWidth: Int
    let columns: [String]
    let columnWidth: Int
    private(set) var lines: [String]

    init(_ title: String, columns: [String], labelWidth: Int = 46, columnWidth: Int = 10, note: String = "") {
        self.labelWidth = labelWidth
        self.columns = columns
        self.columnWidth = columnWidth
        lines = [Self.padded(title, labelWidth) + columns.map { Self.padded($0, columnWidth, right: true) }.joined()
                 + (note.isEmpty ? "" : "  " + note)]
    }

    mutating func row(_ label: String, _ cells: [String], note: String = "") {
        lines.append(Self.padded(label, labelWidth) + cells.map { Self.padded($0, columnWidth, right: true) }.joined()
                     + (note.isEmpty ? "" : "  " + note))
    }

    /// A row of one series: `figures` picks the columns from its summary.
    mutating func row(_ label: String, _ summary: Summary, unit: Unit, note: String = "") {
        row(label, summary.cells(for: columns, unit: unit), note: note)
    }

    /// A row whose figures are one free text (e.g. "spd-say: not installed").
    mutating func row(_ label: String, text: String) {
        lines.append(Self.padded(label, labelWidth) + "  " + text)
    }

    static func padded(_ text: String, _ width: Int, right: Bool = false) -> String {
        let count = text.count
        guard count < width else { return right ? " " + text : text }
        let padding = String(repeating: " ", count: width - count)
        return right ? padding + text : text + padding
    }
}

enum Unit: String {
    case milliseconds = "ms", microseconds = "us"

    func format(_ value: Double?) -> String {
        guard let value else { return "-" }
        return String(format: self == .milliseconds ? "%.1f" : "%.0f", value) + rawValue
    }
}

/// Median, p90, p99, min and max of one series of samples.
struct Summary {
    let samples: [Double]

    init(_ samples: [Double]) { self.samples = samples.filter(\.isFinite) }

    var median: Double? { Percentile.of(samples, 0.5) }
    var p90: Double? { Percentile.of(samples, 0.9) }
    var p99: Double? { Percentile.of(samples, 0.99) }
    var min: Double? { samples.min() }
    var max: Double? { samples.max() }
    var count: Int { samples.count }

    /// The median of `ours` minus the median of `theirs`, with a 95 % interval from a paired
    /// block bootstrap: trials are drawn with replacement (2,000 times, seeded: the same samples
    /// give the same interval), each draw taking both players' samples of that trial, so the
    /// samples of one trial stay together and a drift that moves both players alike cancels.
    /// Trial i of `ours` ran beside trial i of `theirs`. Says whether a difference of tenths of
    /// a millisecond is more than the run's own spread: `(0.2, -0.1, 0.4)` is not.
    static func medianDifference(_ ours: [[Double]], _ theirs: [[Double]],
                                 resamples: Int = 2000) -> (difference: Double, low: Double, high: Double)? {
        let trials = Swift.min(ours.count, theirs.count)
        guard trials > 0, let median = Summary(ours.flatMap { $0 }).median,
              let theirMedian = Summary(theirs.flatMap { $0 }).median else { return nil }
        var random = SplitMix64(seed: 23)
        var differences: [Double] = []
        for _ in 0..<resamples {
            let drawn = (0..<trials).map { _ in Int(random.next() % UInt64(trials)) }
            if let a = Summary(drawn.flatMap { ours[$0] }).median, let b = Summary(drawn.flatMap { theirs[$0] }).median {
                differences.append(a - b)
            }
        }
        guard let low = Percentile.of(differences, 0.025), let high = Percentile.of(differences, 0.975) else { return nil }
        return (median - theirMedian, low, high)
    }

    /// The table cells for column headers "median", "p90", "p99", "min", "max", "runs"/"calls".
    func cells(for columns: [String], unit: Unit) -> [String] {
        columns.map { column in
            switch column {
            case "median": return unit.format(median)
            case "p90": return unit.format(p90)
            case "p99": return unit.format(p99)
            case "min": return unit.format(min)
            case "max": return unit.format(max)
            default: return String(count)
            }
        }
    }
}

/// A figure for JSON: three decimals, nil when unknown or not finite.
func figure(_ value: Double?) -> Double? {
    guard let value, value.isFinite else { return nil }
    return (value * 1000).rounded() / 1000
}

/// One series in milliseconds as a record: latency, narration-yield, policy and open rows.
struct SeriesRecord: Encodable {
    var metric: String
    var label: String
    var build = Build.name
    var player: String?
    var medianMs: Double?
    var p90Ms: Double?
    var minMs: Double?
    var maxMs: Double?
    var runs: Int
    var failures: Int?
    var goalMs: Double?
    var met: Bool?
    var unavailable: String?
    // Only some rows carry these.
    var replyMedianMs: Double?
    var replyP90Ms: Double?
    var coldFirstAudioMs: Double?
    var coldReplyMs: Double?
    var discardedRuns: Int?

    init(metric: String, label: String, _ summary: Summary, failures: Int? = nil, goalMs: Double? = nil,
         unavailable: String? = nil) {
        self.metric = metric
        self.label = label.trimmingCharacters(in: .whitespaces)
        medianMs = figure(summary.median)
        p90Ms = figure(summary.p90)
        minMs = figure(summary.min)
        maxMs = figure(summary.max)
        runs = summary.count
        self.failures = failures
        self.goalMs = goalMs
        met = goalMs.map { goal in summary.median.map { $0 < goal } ?? false }
        self.unavailable = unavailable
    }
}

/// "<60ms met" / "<60ms NOT MET" for a goal on the median.
func goalNote(_ goalMs: Double, _ summary: Summary) -> String {
    String(format: "<%.0fms %@", goalMs, (summary.median.map { $0 < goalMs } ?? false) ? "met" : "NOT MET")
}

enum Build {
    static let name: String = {
        #if DEBUG
        return "debug"
        #else
        return "release"
        #endif
    }()
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Progress on stderr, `[tag] message`.
struct Log: Sendable {
    let tag: String
    func callAsFunction(_ message: String) {
        FileHandle.standardError.write(Data("[\(tag)] \(message)\n".utf8))
    }
}

/// CLOCK_MONOTONIC now, nanoseconds.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}
