import ArgumentParser
import Foundation
import LectorTestKit
#if canImport(Glibc)
import Glibc
#endif

/// `lector-policy-bench`: issue 4's figures for the audio policy, timed in-process on the
/// benchmark's own sd-event loop (sd-bus for the daemon's signals, libpulse for the sound
/// server), so both ends of every interval are read on one clock with no process start inside.
struct PolicyBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lector-policy-bench",
        abstract: "Measure lector's audio policy: route loss -> Paused, call -> silence, announcement -> ducked, end -> restored.",
        discussion: """
            Everything runs in a private session of the test kit (a private dbus-daemon and a private PulseAudio with a null sink), with one `lector serve` narrating a long plain-text book.

            1. Sink removed -> Paused: a null sink bt_headset (device.form_factor=headphone, device.bus=bluetooth) is the default and narration plays on it; from pa_context_unload_module to PropertiesChanged(PlaybackStatus=Paused). PausedBecause must be "device-removed".
            2. Phone stream start -> silence: from pa_stream_connect_playback of a media.role=phone stream to the narration sink input seen corked. PausedBecause must be "call"; the call then ends and narration must resume by itself.
            3. Announcement start -> ducked: another app's music stream (pacat) at 75 %; from sending Speak to its volume seen at exactly 75 % x 0.3.
            4. Last announcement end -> restored: from SpeechFinished(id, "done") to the music stream seen back at exactly 75 %.

            Each metric: one untimed warm-up run, then --runs timed runs. Goal: medians under 50 ms.
            Use a release build for figures that matter; see docs/benchmarks.md. Lines starting with "BENCH " are JSON, one per metric.
            """)

    @Option(help: "Timed runs per metric (after one untimed warm-up run).") var runs = 20
    @Option(help: "The lector executable (default: the one next to this executable).") var lector: String?

    static let build: String = {
        #if DEBUG
        return "debug"
        #else
        return "release"
        #endif
    }()

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
    }

    func run() throws {
        let lectorPath = try LectorExecutable.besideThisExecutable(override: lector)
        Log.write("\(Self.build) build; lector: \(lectorPath)")
        let session = try TestSession(sinks: [PolicyRun.speakers])
        defer { session.shutdown() }
        Self.adoptEnvironment(of: session)

        var results = PolicyResults()
        results.build = Self.build
        results.runs = runs
        let started = Date()
        let policyRun = PolicyRun(session: session, lectorPath: lectorPath, runs: runs)
        do {
            try policyRun.run(into: &results)
        } catch {
            Log.write("benchmark failed: \(error)\n--- lector serve ---\n\(policyRun.daemonOutput)\n\(session.diagnostics)")
            FileHandle.standardError.write(Data("lector-policy-bench: FAILED: \(error)\n".utf8))
            throw ExitCode(1)
        }
        results.notes.append(String(format: "total time %.0f s", Date().timeIntervalSince(started)))
        Report.print(results)
    }

    /// In-process clients (sd-bus, libpulse) connect where this process's environment points:
    /// the session's private bus, sound server and XDG directories, never the real desktop's.
    static func adoptEnvironment(of session: TestSession) {
        for key in ProcessInfo.processInfo.environment.keys where key.hasPrefix("PULSE_") && session.environment[key] == nil {
            unsetenv(key)
        }
        for key in ["DBUS_SESSION_BUS_ADDRESS", "PULSE_SERVER", "HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME",
                    "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"] {
            if let value = session.environment[key] { setenv(key, value, 1) }
        }
    }
}
