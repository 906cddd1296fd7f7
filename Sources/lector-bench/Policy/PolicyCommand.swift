import ArgumentParser
import Foundation
import LectorTestKit

/// Issue 4's figures for the audio policy, timed in-process on the benchmark's own sd-event loop
/// (sd-bus for the daemon's signals, libpulse for the sound server), so both ends of every
/// interval are read on one clock with no process start inside.
struct Policy: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure lector's audio policy: route loss -> Paused, call -> silence, announcement -> ducked, end -> restored.",
        discussion: """
            One private session (a private dbus-daemon and sound server with a null sink), with one `lector serve` narrating a long plain-text book.

            1. Sink removed -> Paused: a null sink bt_headset (device.form_factor=headphone, device.bus=bluetooth) is the default and narration plays on it; from pa_context_unload_module to PropertiesChanged(PlaybackStatus=Paused). PausedBecause must be "device-removed".
            2. Phone stream start -> silence: from pa_stream_connect_playback of a media.role=phone stream to the narration sink input seen corked. PausedBecause must be "call"; the call then ends and narration must resume by itself.
            3. Announcement start -> ducked: another app's music stream (pacat) at 75 %; from sending Speak to its volume seen at exactly 75 % x 0.3.
            4. Last announcement end -> restored: from SpeechFinished(id, "done") to the music stream seen back at exactly 75 %.

            Each metric: one untimed warm-up run, then --runs timed runs. Goal: medians under 50 ms.
            """)

    @OptionGroup var common: CommonOptions
    @Option(help: "Timed runs per metric (after one untimed warm-up run).") var runs = 20

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
    }

    func run() throws {
        let log = Log(tag: "policy-bench")
        let lectorPath = try common.lectorPath(log)
        let session = try BenchSession.start(sinks: [PolicyRun.speakers], log: log)
        defer { session.shutdown() }

        var results = PolicyResults()
        results.runs = runs
        let started = Date()
        let policyRun = PolicyRun(session: session, lectorPath: lectorPath, runs: runs, log: log)
        do {
            try policyRun.run(into: &results)
        } catch {
            log("benchmark failed: \(error)\n--- lector serve ---\n\(policyRun.daemonOutput)\n\(session.diagnostics)")
            FileHandle.standardError.write(Data("lector-bench policy: FAILED: \(error)\n".utf8))
            throw ExitCode(1)
        }
        results.notes.append(String(format: "total time %.0f s", Date().timeIntervalSince(started)))
        var report = BenchReport()
        PolicyReport.report(results, into: &report)
        report.print()
    }
}
