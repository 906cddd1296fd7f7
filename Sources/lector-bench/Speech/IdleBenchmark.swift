import Foundation
import LectorTestKit
#if canImport(Glibc)
import Glibc
#endif

/// How often the sound server wakes up while nothing is being said: with no lector at all
/// (baseline), with an idle lector daemon that has spoken once, and with an idle speech-dispatcher.
///
/// The latency session cannot be used: the kit keeps a 5 ms `parec` on every sink's monitor, so its
/// sinks render continuously. This session is created with no kit sinks (so no keep-awake recorder
/// and no recording at all); one null sink and module-suspend-on-idle (timeout=1) are loaded at run
/// time with pactl, as the kit's pulseaudio command line cannot take extra modules. A sink that nobody
/// plays to or records from is then suspended after 1 s, and its I/O thread sleeps: the baseline.
/// A client that keeps an uncorked stream (or any recording) open keeps the sink running instead.
final class IdleBenchmark {
    static let sink = "lector_idle"

    private let text: String
    private let seconds: Double
    private let lectorPath: String
    private let log: Log

    init(text: String, seconds: Double, lectorPath: String, log: Log) {
        self.text = text
        self.seconds = seconds
        self.lectorPath = lectorPath
        self.log = log
    }

    func run() throws -> IdleResults {
        let session = try BenchSession.start(sinks: [], log: log)
        defer { session.shutdown() }
        var results = IdleResults(seconds: seconds)

        try pactl(session, ["load-module", "module-null-sink", "sink_name=\(Self.sink)",
                            "rate=\(MonitorRecording.sampleRate)", "channels=1",
                            "sink_properties=device.description=\(Self.sink)"])
        try pactl(session, ["set-default-sink", Self.sink])
        try pactl(session, ["load-module", "module-suspend-on-idle", "timeout=1"])
        guard let pulse = session.sessionProcesses(named: "pulseaudio").first else {
            throw BenchError("cannot find the session's pulseaudio process")
        }
        log("idle: pulseaudio pid \(pulse), null sink \(Self.sink) with module-suspend-on-idle timeout=1")

        // (i) Baseline: no lector, nothing playing or recording.
        let baselineSuspended = waitForSinkState(session, "SUSPENDED", timeout: 5)
        Thread.sleep(forTimeInterval: 0.5)
        results.baseline = measure(pulse, context: { [self] in
            "sink \(sinkState(session)) (\(baselineSuspended ? "suspended before the window" : "NOT suspended before the window")), "
                + "\(count(session, "clients")) other clients"
        }).pulse
        log("idle baseline: \(format(results.baseline))")

        // (ii) An idle lector daemon that has spoken once.
        let daemon = try session.spawn(lectorPath, ["serve"])
        try session.waitForBusName(LatencyBenchmark.busName, timeout: 15)
        let said = try session.run(lectorPath, ["say", "--wait", text], timeout: 60)
        if !said.succeeded {
            results.notes.append("lector say --wait failed before the idle window: \(said)")
        }
        let lectorSuspended = waitForSinkState(session, "SUSPENDED", timeout: 5)
        if !lectorSuspended {
            results.notes.append("with lector idle the sink did not suspend within 5 s "
                                 + "(state \(sinkState(session)), sink-inputs: \(sinkInputs(session)))")
        }
        Thread.sleep(forTimeInterval: 0.5)
        let lectorFigures = measure(pulse, daemon: daemon.pid, context: { [self] in
            "sink \(sinkState(session)), \(count(session, "sink-inputs")) sink-inputs "
                + "(\(sinkInputs(session))), \(count(session, "clients")) other clients"
        })
        results.lectorIdle = lectorFigures.pulse
        results.lectorProcess = lectorFigures.daemon
        log("idle with lector: \(format(results.lectorIdle)); daemon: \(format(results.lectorProcess))")
        daemon.terminate(grace: 3)

        // (iii) An idle speech-dispatcher (autospawned by spd-say), if installed.
        if LatencyBenchmark.isOnPath("spd-say", environment: session.environment) {
            try measureSpeechDispatcher(session, pulse: pulse, into: &results)
        } else {
            results.speechDispatcherNote = "not installed"
        }

        // Reference: the same server while one 5 ms recorder reads the sink's monitor, which is what the
        // kit's keep-awake parec does in every TestSession (and why the latency session is not used here).
        _ = waitForSinkState(session, "SUSPENDED", timeout: 5)
        let recorder = try session.spawn("sh", ["-c", "exec parec --device=\(Self.sink).monitor --format=s16le "
                                                + "--rate=\(MonitorRecording.sampleRate) --channels=1 --latency-msec=5 "
                                                + "--raw > /dev/null"])
        _ = waitForSinkState(session, timeout: 5) { $0 != "SUSPENDED" }
        Thread.sleep(forTimeInterval: 0.5)
        results.recordingReference = measure(pulse, context: { [self] in
            "sink \(sinkState(session)) while parec --latency-msec=5 records its monitor"
        }).pulse
        recorder.terminate(grace: 1)
        log("idle reference with a monitor recorder: \(format(results.recordingReference))")
        return results
    }

    private func measureSpeechDispatcher(_ session: TestSession, pulse: Int32, into results: inout IdleResults) throws {
        _ = waitForSinkState(session, "SUSPENDED", timeout: 5)
        let spoken = try session.run("spd-say", ["--wait", text], timeout: 60)
        if !spoken.succeeded { results.notes.append("spd-say --wait failed: \(spoken)") }
        guard let dispatcher = session.sessionProcesses(named: "speech-dispatcher").first else {
            results.speechDispatcherNote = "spd-say ran but no speech-dispatcher process was found"
            return
        }
        let dispatcherSuspended = waitForSinkState(session, "SUSPENDED", timeout: 5)
        if !dispatcherSuspended {
            results.notes.append("with speech-dispatcher idle the sink did not suspend within 5 s "
                                 + "(state \(sinkState(session)), sink-inputs: \(sinkInputs(session)))")
        }
        Thread.sleep(forTimeInterval: 0.5)
        let dispatcherFigures = measure(pulse, daemon: dispatcher, context: { [self] in
            "sink \(sinkState(session)), \(count(session, "sink-inputs")) sink-inputs, "
                + "speech-dispatcher \(ProcessProbe.isAlive(dispatcher) ? "still running" : "exited during the window")"
        })
        results.speechDispatcherIdle = dispatcherFigures.pulse
        results.speechDispatcherProcess = dispatcherFigures.daemon
        log("idle with speech-dispatcher: \(format(results.speechDispatcherIdle)); "
            + "speech-dispatcher: \(format(results.speechDispatcherProcess))")
    }

    // MARK: - Measuring

    /// Sleeps through the window touching nothing (no pactl: every request wakes the server),
    /// then reads the counters and, afterwards, the context (sink state etc.).
    private func measure(_ pulse: Int32, daemon: Int32? = nil,
                         context: () -> String) -> (pulse: IdleFigure?, daemon: IdleFigure?) {
        let pulseBefore = ProcessCounters.read(pid: pulse)
        let daemonBefore = daemon.flatMap { ProcessCounters.read(pid: $0) }
        let start = Date()
        Thread.sleep(forTimeInterval: seconds)
        let pulseAfter = ProcessCounters.read(pid: pulse)
        let daemonAfter = daemon.flatMap { ProcessCounters.read(pid: $0) }
        let elapsed = Date().timeIntervalSince(start)
        let note = context()
        func figure(_ before: ProcessCounters?, _ after: ProcessCounters?, _ note: String) -> IdleFigure? {
            guard let before, let after else { return nil }
            return IdleFigure(switchesPerSecond: Double(after.contextSwitches - before.contextSwitches) / elapsed,
                              cpuTicks: after.cpuTicks - before.cpuTicks, seconds: elapsed, note: note)
        }
        return (figure(pulseBefore, pulseAfter, note),
                figure(daemonBefore, daemonAfter, daemonAfter.map { "\($0.threads) threads" } ?? ""))
    }

    private func format(_ figure: IdleFigure?) -> String {
        guard let figure else { return "-" }
        return String(format: "%.1f wakeups/s, %d CPU ticks over %.1f s; ", figure.switchesPerSecond,
                      figure.cpuTicks, figure.seconds) + figure.note
    }

    // MARK: - pactl

    private func pactl(_ session: TestSession, _ arguments: [String]) throws {
        let result = try session.run("pactl", arguments, timeout: 10)
        guard result.succeeded else { throw BenchError("pactl \(arguments.joined(separator: " ")): \(result)") }
    }

    private func sinkState(_ session: TestSession) -> String {
        guard let result = try? session.run("pactl", ["list", "short", "sinks"], timeout: 5), result.succeeded else {
            return "?"
        }
        for line in result.stdout.split(separator: "\n") {
            let columns = line.split(separator: "\t")
            if columns.count >= 2, columns[1] == Self.sink { return String(columns.last!) }
        }
        return "?"
    }

    private func waitForSinkState(_ session: TestSession, _ state: String, timeout: TimeInterval) -> Bool {
        waitForSinkState(session, timeout: timeout) { $0 == state }
    }

    private func waitForSinkState(_ session: TestSession, timeout: TimeInterval, until wanted: (String) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if wanted(sinkState(session)) { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return wanted(sinkState(session))
    }

    private func count(_ session: TestSession, _ what: String) -> String {
        guard let result = try? session.run("pactl", ["list", "short", what], timeout: 5), result.succeeded else {
            return "?"
        }
        let lines = result.stdout.split(separator: "\n")
        // The pactl asking is a client itself.
        return String(what == "clients" ? lines.filter { !$0.hasSuffix("pactl") }.count : lines.count)
    }

    /// "client-name state" of every sink input, from `pactl list sink-inputs` (short lists omit both).
    private func sinkInputs(_ session: TestSession) -> String {
        guard let result = try? session.run("pactl", ["list", "sink-inputs"], timeout: 5), result.succeeded else {
            return "?"
        }
        var entries: [String] = []
        var corked = "", name = ""
        for line in result.stdout.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("Sink Input #") {
                if !name.isEmpty || !corked.isEmpty { entries.append("\(name) corked=\(corked)") }
                corked = ""; name = ""
            } else if line.hasPrefix("Corked:") {
                corked = line.dropFirst("Corked:".count).trimmingCharacters(in: .whitespaces)
            } else if line.hasPrefix("application.name = ") {
                name = line.dropFirst("application.name = ".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        if !name.isEmpty || !corked.isEmpty { entries.append("\(name) corked=\(corked)") }
        return entries.isEmpty ? "none" : entries.joined(separator: "; ")
    }
}

/// Context switches per second of one process over the idle window, with what else was true then.
struct IdleFigure {
    let switchesPerSecond: Double
    let cpuTicks: Int
    let seconds: Double
    /// e.g. the sink's state at the end of the window.
    let note: String
}

struct IdleResults {
    var seconds: Double = 0
    var baseline: IdleFigure?
    var lectorIdle: IdleFigure?
    var speechDispatcherIdle: IdleFigure?
    var speechDispatcherNote: String?
    /// The daemon's own figures over its idle window.
    var lectorProcess: IdleFigure?
    var speechDispatcherProcess: IdleFigure?
    /// The same server while a 5 ms recorder reads the monitor (the test kit's keep-awake).
    var recordingReference: IdleFigure?
    var notes: [String] = []
}

/// One idle figure as a record: `idle.<key>`.
struct IdleRecord: Encodable {
    var metric: String
    var build = Build.name
    var seconds: Double?
    var wakeupsPerS: Double?
    var cpuTicks: Int?
    var note: String?
}

extension IdleBenchmark {
    static func report(_ idle: IdleResults, into report: inout BenchReport) {
        func rate(_ figure: IdleFigure?) -> String {
            figure.map { String(format: "%.1f", $0.switchesPerSecond) } ?? "-"
        }
        let seconds = String(format: "%g", idle.seconds)
        report.text("lector-bench idle (\(Build.name) build)")
        var table = TextTable("pulseaudio wakeups/s", columns: ["baseline", "lector", "spd", "reference"], labelWidth: 44)
        table.row("idle: pulseaudio wakeups/s", [rate(idle.baseline), rate(idle.lectorIdle),
                                                 rate(idle.speechDispatcherIdle), rate(idle.recordingReference)])
        report.table(table)
        report.text("idle: lector CPU ticks over \(seconds)s   "
                    + (idle.lectorProcess.map { String($0.cpuTicks) } ?? "-")
                    + (idle.lectorProcess.map { String(format: "  (wakeups/s %.1f)", $0.switchesPerSecond) } ?? ""))
        if let dispatcher = idle.speechDispatcherProcess {
            report.text("idle: speech-dispatcher CPU ticks over \(seconds)s   \(dispatcher.cpuTicks)"
                        + String(format: "  (wakeups/s %.1f)", dispatcher.switchesPerSecond))
        }
        for (name, figure) in [("baseline", idle.baseline), ("lector idle", idle.lectorIdle),
                               ("speech-dispatcher idle", idle.speechDispatcherIdle),
                               ("reference (a 5 ms monitor recorder)", idle.recordingReference)] {
            if let figure { report.text("  \(name): \(figure.note)") }
        }
        if let note = idle.speechDispatcherNote { report.text("  speech-dispatcher: \(note)") }
        for note in idle.notes { report.text("  note: \(note)") }
        report.text()
        for (key, value) in [("pulseaudio_baseline", idle.baseline), ("pulseaudio_lector_idle", idle.lectorIdle),
                              ("pulseaudio_speech_dispatcher_idle", idle.speechDispatcherIdle),
                              ("lector_process", idle.lectorProcess),
                              ("speech_dispatcher_process", idle.speechDispatcherProcess),
                              ("pulseaudio_monitor_recorder_reference", idle.recordingReference)] {
            report.record(IdleRecord(metric: "idle.\(key)", seconds: figure(idle.seconds),
                                     wakeupsPerS: figure(value?.switchesPerSecond), cpuTicks: value?.cpuTicks,
                                     note: value?.note))
        }
    }
}
