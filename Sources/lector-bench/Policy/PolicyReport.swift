import Foundation

enum PolicyReport {
    static let goalMs = 50.0

    static func report(_ results: PolicyResults, into report: inout BenchReport) {
        report.text("lector-bench policy (\(Build.name) build), \(results.runs) runs per metric, \(results.serverName)")
        var table = TextTable("metric", columns: ["median", "p90", "min", "max", "runs"], labelWidth: 52,
                              note: "goal (median)")
        var warnings: [String] = []
        for series in results.all {
            let summary = Summary(series.samples)
            table.row(series.label, summary, unit: .milliseconds, note: series.isGoal ? goalNote(goalMs, summary) : "")
            if series.isGoal, let median = summary.median, median >= goalMs {
                warnings.append(String(format: "WARNING: %@: median %.1f ms is not under the %.0f ms goal",
                                       series.label, median, goalMs))
            }
            var record = SeriesRecord(metric: "policy.\(series.key)", label: series.label, summary,
                                      goalMs: series.isGoal ? goalMs : nil)
            if series.key == results.routeToPaused.key { record.discardedRuns = results.routeWrongReason.count }
            report.record(record)
        }
        report.table(table)
        if !results.routeWrongReason.isEmpty {
            let reasons = Dictionary(grouping: results.routeWrongReason, by: { $0 }).map { "\($0.value.count)x \"\($0.key)\"" }
            warnings.append("WARNING: \(results.routeWrongReason.count) sink-removal runs paused with another PausedBecause than "
                            + "\"device-removed\" (\(reasons.sorted().joined(separator: ", "))): not counted, replaced by further runs")
        }
        report.text(warnings)
        report.text(results.notes.map { "note: \($0)" })
    }
}
