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

    var median: Double? { Percentile.of(samples, 0.5) }
    var p90: Double? { Percentile.of(samples, 0.9) }
    var met: Bool? { goalMs.map { goal in median.map { $0 < goal } ?? false } }
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

enum NarrationYieldReport {
    static func print(_ results: NarrationYieldResults, build: String, text: String) {
        func ms(_ value: Double?) -> String { Report.milliseconds(value) }
        var lines: [String] = []
        lines.append("")
        lines.append("narration yield (issue 5, \(build) build): announcements on \(NarrationYieldBenchmark.announcementSink), "
                     + "a book narrated on \(NarrationYieldBenchmark.narrationSink); text: \"\(text)\"")
        lines.append(Report.padded("metric", 46) + ["median", "p90", "min", "max"].map { Report.padded($0, 10, right: true) }.joined()
                     + Report.padded("runs", 6, right: true) + "  goal (median)")
        var warnings: [String] = []
        for row in results.rows {
            if let reason = row.unavailable {
                lines.append(Report.padded(row.label, 46) + "  " + reason)
                continue
            }
            var line = Report.padded(row.label, 46)
                + [row.median, row.p90, row.samples.min(), row.samples.max()].map { Report.padded(ms($0), 10, right: true) }.joined()
                + Report.padded(String(row.samples.count), 6, right: true)
            if let goal = row.goalMs {
                line += String(format: "  <%.0fms %@", goal, row.met == true ? "met" : "NOT MET")
                if row.met != true {
                    warnings.append(String(format: "WARNING: %@: median %@ is not under the %.0f ms goal",
                                           row.label, ms(row.median), goal))
                }
            }
            if row.failures > 0 { line += "  (\(row.failures) failed)" }
            lines.append(line)
        }
        let runs = results.lectorRuns
        lines.append("checks over \(runs) lector runs: narration heard while the announcement sounded in \(results.overlapRuns)"
                     + (results.overlapRuns > 0 ? String(format: " (up to %.1f ms into it)", results.maxOverlapMs) : "")
                     + "; PlaybackStatus changed in \(results.statusFlickerRuns); PausedBecause \"announcement\" in "
                     + "\(results.pausedBecauseAnnouncementRuns), back to \"\" in \(results.pausedBecauseClearedRuns)")
        if results.spdSay.unavailable == nil {
            lines.append("spd-say does not pause the book: narration was heard while spd-say spoke in "
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
        lines += warnings
        lines += results.notes.map { "note: \($0)" }
        lines.append(String(format: "note: narration-yield time %.0f s", results.totalSeconds))
        lines.append("")
        for row in results.rows {
            lines.append(Report.machineLine([
                ("metric", "narration_yield.\(row.key)"), ("label", row.label.trimmingCharacters(in: .whitespaces)),
                ("build", build), ("median_ms", row.median), ("p90_ms", row.p90), ("min_ms", row.samples.min()),
                ("max_ms", row.samples.max()), ("runs", row.samples.count), ("failures", row.failures),
                ("goal_ms", row.goalMs), ("met", row.met), ("unavailable", row.unavailable),
            ]))
        }
        lines.append(Report.machineLine([
            ("metric", "narration_yield.checks"), ("build", build), ("lector_runs", runs),
            ("narration_during_announcement_runs", results.overlapRuns),
            ("overlap_tolerance_ms", NarrationYieldBenchmark.overlapToleranceMs), ("max_overlap_ms", results.overlapRuns > 0 ? results.maxOverlapMs : nil),
            ("playback_status_changed_runs", results.statusFlickerRuns),
            ("paused_because_announcement_runs", results.pausedBecauseAnnouncementRuns),
            ("paused_because_cleared_runs", results.pausedBecauseClearedRuns),
            ("spd_say_narration_audible_runs", results.spdSay.unavailable == nil ? results.spdSayNarrationAudibleRuns : nil),
        ]))
        Swift.print(lines.joined(separator: "\n"))
    }
}
