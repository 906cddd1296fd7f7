import Foundation
import LectorTestKit

/// Latency samples of one way of making sound, in milliseconds.
struct LatencySeries {
    let key: String
    let label: String
    var samples: [Double] = []
    var failures = 0
    /// Why the row has no figures (e.g. "not installed"), or nil.
    var unavailable: String?

    var median: Double? { Percentile.of(samples, 0.5) }
    var p90: Double? { Percentile.of(samples, 0.9) }
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

enum Report {
    static func milliseconds(_ value: Double?) -> String {
        guard let value else { return "-" }
        return String(format: "%.1fms", value)
    }

    static func padded(_ text: String, _ width: Int, right: Bool = false) -> String {
        let count = text.count
        guard count < width else { return text }
        let padding = String(repeating: " ", count: width - count)
        return right ? padding + text : text + padding
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

    private static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    static func print(latency: [LatencySeries], idle: IdleResults?, build: String, text: String) {
        var lines: [String] = []
        lines.append("")
        lines.append("lector-bench (\(build) build), text: \"\(text)\"")
        lines.append(padded("metric", 44) + padded("median", 10, right: true) + padded("p90", 10, right: true)
                     + padded("runs", 6, right: true))
        for series in latency {
            if let reason = series.unavailable {
                lines.append(padded(series.label, 44) + "  " + reason)
                continue
            }
            var line = padded(series.label, 44) + padded(milliseconds(series.median), 10, right: true)
                + padded(milliseconds(series.p90), 10, right: true) + padded(String(series.samples.count), 6, right: true)
            if series.failures > 0 { line += "  (\(series.failures) failed)" }
            lines.append(line)
        }
        if let idle {
            func rate(_ figure: IdleFigure?) -> String {
                figure.map { String(format: "%.1f", $0.switchesPerSecond) } ?? "-"
            }
            let seconds = String(format: "%g", idle.seconds)
            lines.append("idle: pulseaudio wakeups/s  baseline \(rate(idle.baseline))  lector idle \(rate(idle.lectorIdle))"
                         + "  speech-dispatcher idle \(rate(idle.speechDispatcherIdle))")
            lines.append("idle: lector CPU ticks over \(seconds)s   "
                         + (idle.lectorProcess.map { String($0.cpuTicks) } ?? "-")
                         + (idle.lectorProcess.map { String(format: "  (wakeups/s %.1f)", $0.switchesPerSecond) } ?? ""))
            if let reference = idle.recordingReference {
                lines.append(String(format: "idle: pulseaudio wakeups/s  with a 5 ms monitor recorder (reference) %.1f",
                                    reference.switchesPerSecond))
            }
            if let dispatcher = idle.speechDispatcherProcess {
                lines.append("idle: speech-dispatcher CPU ticks over \(seconds)s   \(dispatcher.cpuTicks)"
                             + String(format: "  (wakeups/s %.1f)", dispatcher.switchesPerSecond))
            }
            for (name, figure) in [("baseline", idle.baseline), ("lector idle", idle.lectorIdle),
                                   ("speech-dispatcher idle", idle.speechDispatcherIdle),
                                   ("reference", idle.recordingReference)] {
                if let figure { lines.append("  \(name): \(figure.note)") }
            }
            if let note = idle.speechDispatcherNote { lines.append("  speech-dispatcher: \(note)") }
            for note in idle.notes { lines.append("  note: \(note)") }
        }
        lines.append("")
        for series in latency {
            lines.append(machineLine([
                ("metric", "latency.\(series.key)"), ("label", series.label), ("build", build),
                ("median_ms", series.median), ("p90_ms", series.p90), ("runs", series.samples.count),
                ("failures", series.failures), ("unavailable", series.unavailable),
            ]))
        }
        if let idle {
            for (key, figure) in [("pulseaudio_baseline", idle.baseline), ("pulseaudio_lector_idle", idle.lectorIdle),
                                  ("pulseaudio_speech_dispatcher_idle", idle.speechDispatcherIdle),
                                  ("lector_process", idle.lectorProcess),
                                  ("speech_dispatcher_process", idle.speechDispatcherProcess),
                                  ("pulseaudio_monitor_recorder_reference", idle.recordingReference)] {
                lines.append(machineLine([
                    ("metric", "idle.\(key)"), ("build", build), ("seconds", idle.seconds),
                    ("wakeups_per_s", figure?.switchesPerSecond), ("cpu_ticks", figure?.cpuTicks),
                    ("note", figure?.note),
                ]))
            }
        }
        Swift.print(lines.joined(separator: "\n"))
    }
}
