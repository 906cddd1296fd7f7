import Foundation
import LectorTestKit

enum Report {
    static let goalMs = 50.0

    static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    static func leftPadded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    static func ms(_ value: Double?) -> String {
        value.map { String(format: "%.1fms", $0) } ?? "-"
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

    static func print(_ results: PolicyResults) {
        var lines: [String] = []
        lines.append("lector-policy-bench (\(results.build) build), \(results.runs) runs per metric, \(results.serverName)")
        lines.append(padded("metric", 52) + ["median", "p90", "min", "max"].map { leftPadded($0, 10) }.joined()
                     + leftPadded("runs", 6) + "  goal (median)")
        var warnings: [String] = []
        for series in results.all {
            let median = Percentile.of(series.samples, 0.5)
            let p90 = Percentile.of(series.samples, 0.9)
            lines.append(padded(series.label, 52)
                         + [median, p90, series.samples.min(), series.samples.max()].map { leftPadded(ms($0), 10) }.joined()
                         + leftPadded(String(series.samples.count), 6)
                         + (series.isGoal ? String(format: "  <%.0fms %@", goalMs, (median.map { $0 < goalMs } ?? false) ? "met" : "NOT MET") : ""))
            if series.isGoal, let median, median >= goalMs {
                warnings.append(String(format: "WARNING: %@: median %.1f ms is not under the %.0f ms goal",
                                       series.label, median, goalMs))
            }
        }
        if !results.routeWrongReason.isEmpty {
            let reasons = Dictionary(grouping: results.routeWrongReason, by: { $0 }).map { "\($0.value.count)x \"\($0.key)\"" }
            warnings.append("WARNING: \(results.routeWrongReason.count) sink-removal runs paused with another PausedBecause than "
                            + "\"device-removed\" (\(reasons.sorted().joined(separator: ", "))): not counted, replaced by further runs")
        }
        lines += warnings
        lines += results.notes.map { "note: \($0)" }
        for series in results.all {
            lines.append(machineLine([
                ("metric", "policy.\(series.key)"),
                ("label", series.label.trimmingCharacters(in: .whitespaces)),
                ("median_ms", Percentile.of(series.samples, 0.5)),
                ("p90_ms", Percentile.of(series.samples, 0.9)),
                ("min_ms", series.samples.min()),
                ("max_ms", series.samples.max()),
                ("runs", series.samples.count),
                ("goal_ms", series.isGoal ? goalMs : nil),
                ("met", series.isGoal ? (Percentile.of(series.samples, 0.5).map { $0 < goalMs } ?? false) : nil),
                ("discarded_runs", series.key == results.routeToPaused.key ? results.routeWrongReason.count : nil),
                ("build", results.build),
            ]))
        }
        Swift.print(lines.joined(separator: "\n"))
    }
}
