import Foundation
import LectorTestKit

/// One row of the narration-yield table, in milliseconds.
struct YieldSeries {
    let key: String
    let label: String
    /// Issue 5's goal for the median, or nil for a breakdown/comparison row.
    let goalMs: Double?
    var samples: [Double] = []
    var failures = 0
    var unavailable: String?

    init(_ key: String, _ label: String, goalMs: Double? = nil) {
        self.key = key
        self.label = label
        self.goalMs = goalMs
    }

    var met: Bool? { goalMs.map { goal in Summary(samples).median.map { $0 < goal } ?? false } }
}

struct NarrationYieldResults {
    var speak = YieldSeries("speak_to_announcement", "Speak -> announcement audible (narrating)",
                            goalMs: NarrationYieldBenchmark.speakGoalMs)
    var speakReply = YieldSeries("speak_reply", "  Speak -> reply")
    var speakToSilent = YieldSeries("speak_to_narration_silent", "  Speak -> last narration sound")
    var silentToAnnouncement = YieldSeries("narration_silent_to_announcement", "  last narration sound -> announcement")
    var resume = YieldSeries("end_to_narration", "SpeechFinished -> narration audible again",
                             goalMs: NarrationYieldBenchmark.resumeGoalMs)
    var heardGap = YieldSeries("announcement_sound_to_narration", "  last announcement sound -> narration")
    var tailToFinished = YieldSeries("announcement_sound_to_finished", "  last announcement sound -> SpeechFinished")
    var cliSpeak = YieldSeries("lector_say_to_announcement", "lector say TEXT (CLI) -> sound (narrating)")
    var cliResume = YieldSeries("lector_say_end_to_narration", "  its SpeechFinished -> narration audible")
    var spdSay = YieldSeries("spd_say_to_sound", "spd-say TEXT -> sound (narration goes on)")

    var lectorRuns = 0
    /// Runs where narration was heard while the announcement sounded (more than `overlapToleranceMs`
    /// after its first sound and before its last), and the latest such narration sound, from its first.
    var overlapRuns = 0
    var maxOverlapMs = 0.0
    var statusFlickerRuns = 0
    var pausedBecauseAnnouncementRuns = 0
    var pausedBecauseClearedRuns = 0
    var spdSayNarrationAudibleRuns = 0
    var totalSeconds = 0.0
    var notes: [String] = []

    var rows: [YieldSeries] { [speak, speakReply, speakToSilent, silentToAnnouncement, resume, heardGap, tailToFinished, cliSpeak, cliResume, spdSay] }
}

/// `narration_yield.checks`: what every lector run was checked for.
struct YieldChecksRecord: Encodable {
    var metric = "narration_yield.checks"
    var build = Build.name
    var lectorRuns: Int
    var narrationDuringAnnouncementRuns: Int
    var overlapToleranceMs: Double
    var maxOverlapMs: Double?
    var playbackStatusChangedRuns: Int
    var pausedBecauseAnnouncementRuns: Int
    var pausedBecauseClearedRuns: Int
    var spdSayNarrationAudibleRuns: Int?
}

enum NarrationYieldReport {
    static func report(_ results: NarrationYieldResults, text: String, into report: inout BenchReport) {
        report.text("narration yield (issue 5, \(Build.name) build): announcements on \(NarrationYieldBenchmark.announcementSink), "
                    + "a book narrated on \(NarrationYieldBenchmark.narrationSink); text: \"\(text)\"")
        var table = TextTable("metric", columns: ["median", "p90", "min", "max", "runs"], note: "goal (median)")
        var warnings: [String] = []
        for row in results.rows {
            let summary = Summary(row.samples)
            report.record(SeriesRecord(metric: "narration_yield.\(row.key)", label: row.label, summary,
                                       failures: row.failures, goalMs: row.goalMs, unavailable: row.unavailable))
            if let reason = row.unavailable {
                table.row(row.label, text: reason)
                continue
            }
            var note = row.goalMs.map { goalNote($0, summary) } ?? ""
            if let goal = row.goalMs, row.met != true {
                warnings.append(String(format: "WARNING: %@: median %@ is not under the %.0f ms goal",
                                       row.label, Unit.milliseconds.format(summary.median), goal))
            }
            if row.failures > 0 { note += (note.isEmpty ? "" : "  ") + "(\(row.failures) failed)" }
            table.row(row.label, summary, unit: .milliseconds, note: note)
        }
        report.table(table)
        let runs = results.lectorRuns
        report.text("checks over \(runs) lector runs: narration heard while the announcement sounded in \(results.overlapRuns)"
                    + (results.overlapRuns > 0 ? String(format: " (up to %.1f ms into it)", results.maxOverlapMs) : "")
                    + "; PlaybackStatus changed in \(results.statusFlickerRuns); PausedBecause \"announcement\" in "
                    + "\(results.pausedBecauseAnnouncementRuns), back to \"\" in \(results.pausedBecauseClearedRuns)")
        if results.spdSay.unavailable == nil {
            report.text("spd-say does not pause the book: narration was heard while spd-say spoke in "
                        + "\(results.spdSayNarrationAudibleRuns) of \(results.spdSay.samples.count) runs")
        }
        if results.overlapRuns > 0 {
            warnings.append("WARNING: narration was heard during the announcement in \(results.overlapRuns) of \(runs) runs")
        }
        if results.statusFlickerRuns > 0 {
            warnings.append("WARNING: PlaybackStatus changed during \(results.statusFlickerRuns) announcements")
        }
        if results.pausedBecauseAnnouncementRuns < runs || results.pausedBecauseClearedRuns < runs {
            warnings.append("WARNING: PausedBecause did not go to \"announcement\" and back to \"\" in every run")
        }
        report.text(warnings)
        report.text(results.notes.map { "note: \($0)" })
        report.text(String(format: "note: narration-yield time %.0f s", results.totalSeconds))
        report.text()
        report.record(YieldChecksRecord(
            lectorRuns: runs, narrationDuringAnnouncementRuns: results.overlapRuns,
            overlapToleranceMs: NarrationYieldBenchmark.overlapToleranceMs,
            maxOverlapMs: results.overlapRuns > 0 ? figure(results.maxOverlapMs) : nil,
            playbackStatusChangedRuns: results.statusFlickerRuns,
            pausedBecauseAnnouncementRuns: results.pausedBecauseAnnouncementRuns,
            pausedBecauseClearedRuns: results.pausedBecauseClearedRuns,
            spdSayNarrationAudibleRuns: results.spdSay.unavailable == nil ? results.spdSayNarrationAudibleRuns : nil))
    }
}
