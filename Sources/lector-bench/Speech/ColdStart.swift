import Foundation
import Glibc
import LectorInterface
import LectorTestKit

/// Cold start (issue 23): nothing of the speaker runs when the client starts. `lector say` with
/// the daemon started by D-Bus activation (lectord from the session's service directory), against
/// `spd-say` autospawning speech-dispatcher; each run stops what it started, so the next one
/// starts cold again (the page cache stays warm for both, as on a desktop after the first use).
struct ColdStart {
    let session: TestSession
    let recording: MonitorRecording
    let text: String
    let lectorPath: String
    let log: Log

    /// Runs alternate between the two, `runs` each; spd-say's rows are absent when it is missing.
    func run(runs: Int, quietGap: TimeInterval) throws -> [LatencySeries] {
        let lectord = ((lectorPath as NSString).deletingLastPathComponent as NSString).appendingPathComponent("lectord")
        guard FileManager.default.isExecutableFile(atPath: lectord) else {
            throw BenchError("no lectord beside \(lectorPath): the cold start activates it")
        }
        try session.installDBusService(name: BusNames.service, executable: lectord)
        var lector = LatencySeries(key: "cold_lector_say_activation", label: "cold: lector say, daemon activated -> sound")
        let spdSay = LatencyBenchmark.isOnPath("spd-say", environment: session.environment)
        var speechDispatcher = LatencySeries(key: "cold_spd_say_autospawn", label: "cold: spd-say, server autospawned -> sound")
        if !spdSay { speechDispatcher.unavailable = "spd-say: not installed" }

        try stopLector()
        try stopSpeechDispatcher()
        for round in 0..<runs {
            let order = round % 2 == 0 ? [true, false] : [false, true]
            for isLector in order where isLector || spdSay {
                let figure = try measure(isLector ? lectorPath : "spd-say", isLector ? ["say", text] : [text], quietGap: quietGap)
                if isLector {
                    try stopLector()
                    if let figure { lector.samples.append(figure) } else { lector.failures += 1 }
                } else {
                    try stopSpeechDispatcher()
                    if let figure { speechDispatcher.samples.append(figure) } else { speechDispatcher.failures += 1 }
                }
            }
            log("cold round \(round + 1)/\(runs): lector \(lector.samples.last.map { String(format: "%.1f", $0) } ?? "-"), "
                + "spd-say \(speechDispatcher.samples.last.map { String(format: "%.1f", $0) } ?? "-") ms")
        }
        return [lector, speechDispatcher]
    }

    /// Milliseconds from spawning the client to the first sound, or nil (logged) when none came.
    private func measure(_ executable: String, _ arguments: [String], quietGap: TimeInterval) throws -> Double? {
        guard recording.waitForSilence(quiet: quietGap, timeout: 60) else {
            log("cold: the sink never fell silent before \(executable)")
            return nil
        }
        let start = Date()
        let client = try session.spawn(executable, arguments)
        let sound = recording.waitForSound(after: start, timeout: 20)
        if client.waitForExit(timeout: 60) != 0 { log("cold: \(executable) failed: \(client.output)") }
        _ = recording.waitForSilence(quiet: quietGap, timeout: 60)
        guard let sound else {
            log("cold: \(executable): no sound within 20 s")
            return nil
        }
        return sound.timeIntervalSince(start) * 1000
    }

    /// Stops the activated daemon (SIGTERM: it writes its state and leaves) and waits for its name to go.
    private func stopLector() throws {
        guard try session.busNameHasOwner(BusNames.service) else { return }
        let reply = try session.run("busctl", ["--user", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                               "org.freedesktop.DBus", "GetConnectionUnixProcessID", "s", BusNames.service])
        guard let pid = reply.stdout.split(separator: " ").last.flatMap({ Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
            throw BenchError("no pid for \(BusNames.service): \(reply)")
        }
        kill(pid, SIGTERM)
        log("cold: stopping lectord (pid \(pid))")
        try waitUntil("\(BusNames.service) to be released") { try !session.busNameHasOwner(BusNames.service) }
    }

    /// Stops an autospawned speech-dispatcher (its pid file is in the session's runtime directory)
    /// and waits for it to exit.
    private func stopSpeechDispatcher() throws {
        guard let runtime = session.environment["XDG_RUNTIME_DIR"] else { return }
        let pidFile = "\(runtime)/speech-dispatcher/pid/speech-dispatcher.pid"
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
              let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), kill(pid, 0) == 0 else { return }
        kill(pid, SIGTERM)
        try waitUntil("speech-dispatcher (pid \(pid)) to exit") { kill(pid, 0) != 0 }
        log("cold: stopped speech-dispatcher (pid \(pid))")
    }

    private func waitUntil(_ what: String, _ done: () throws -> Bool) throws {
        let deadline = Date(timeIntervalSinceNow: 10)
        while try !done() {
            guard Date() < deadline else { throw BenchError("timed out waiting for \(what)") }
            usleep(20_000)
        }
    }
}
