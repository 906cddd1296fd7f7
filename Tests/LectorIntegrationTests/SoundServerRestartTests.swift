import Foundation
import LectorTestKit
import XCTest

/// PulseAudio going away mid-speech fails that speech, not the daemon; when the server is back
/// the daemon reconnects by itself (it retries every second) and speaks again.
final class SoundServerRestartTests: XCTestCase {
    /// Stops the server while a long text speaks (a second one waiting); both end as `failed`.
    private func stopServerMidSpeech(_ lector: LectorFixture) throws -> (current: UInt64, waiting: UInt64) {
        let called = Date()
        let id = try lector.speak(Texts.long)
        XCTAssertNotNil(lector.recording.waitForSound(after: called, timeout: 2), "not heard\(lector.context)")
        XCTAssertNotNil(lector.started(id, timeout: 5), lector.context)
        // Let synthesis run ahead (the daemon buffers up to ~5 s of audio), as it would in real use.
        XCTAssertNotNil(lector.sound(after: Date().addingTimeInterval(0.8), timeout: 2), lector.context)
        let waiting = try lector.speak("Waiting in the queue.")

        lector.session.stopSoundServer()
        let finished = try XCTUnwrap(lector.finished(id, timeout: 5),
                                     "no SpeechFinished after the sound server stopped\(lector.context)")
        XCTAssertEqual(finished.arguments, [String(id), "failed"], lector.context)
        XCTAssertEqual(lector.finished(waiting, timeout: 5)?.arguments, [String(waiting), "failed"],
                       "the waiting speech cannot be heard either\(lector.context)")
        XCTAssertTrue(lector.daemon.isRunning, "the daemon died with the sound server\(lector.context)")
        return (id, waiting)
    }

    /// While the server is down, Speak is refused with SoundServerUnavailable. (While a reconnection
    /// attempt is under way the daemon's state is "connecting" and Speak is accepted; such a speech
    /// must then end as `failed`.) Keeps asking for `seconds`, i.e. across several retries.
    private func assertRefusedWhileDown(_ lector: LectorFixture, for seconds: TimeInterval) throws {
        var refusals = 0, attempts = 0
        let until = Date(timeIntervalSinceNow: seconds)
        while Date() < until {
            attempts += 1
            let result = try lector.call("Speak", ["Nobody can hear this.", "{}"])
            if result.succeeded {
                let accepted = try XCTUnwrap(LectorFixture.uint64(in: result.stdout))
                XCTAssertEqual(lector.finished(accepted, timeout: 5)?.arguments.last, "failed",
                               "accepted while the server is down, and not failed\(lector.context)")
            } else {
                lector.assertError(result, "SoundServerUnavailable", "Speak while the sound server is down")
                refusals += 1
            }
            XCTAssertTrue(lector.daemon.isRunning, "the daemon died while the sound server was down\(lector.context)")
            if !lector.daemon.isRunning { return }
            usleep(200_000)
        }
        XCTAssertGreaterThan(refusals, attempts / 2, "Speak mostly accepted while the sound server was down\(lector.context)")
        lector.assertServing("while the sound server is down")
    }

    /// Restarts the server and polls Speak until accepted (5 s at most); that speech must be heard.
    private func assertSpeaksAgainAfterRestart(_ lector: LectorFixture) throws -> UInt64 {
        try lector.session.startSoundServer()
        let restarted = Date()
        let recording = try lector.session.record()
        var acceptedID: UInt64?
        var acceptedAt = Date()
        var lastResult: ProcessResult?
        while acceptedID == nil && Date().timeIntervalSince(restarted) < 5 && lector.daemon.isRunning {
            acceptedAt = Date()
            let result = try lector.call("Speak", ["The sound server is back.", "{}"])
            lastResult = result
            if result.succeeded {
                acceptedID = LectorFixture.uint64(in: result.stdout)
            } else {
                lector.assertError(result, "SoundServerUnavailable", "Speak while reconnecting")
                usleep(100_000)
            }
        }
        let id = try XCTUnwrap(acceptedID, "Speak still refused 5 s after the restart: \(String(describing: lastResult))\(lector.context)")
        let heard = recording.waitForSound(after: acceptedAt, timeout: 3)
        XCTAssertNotNil(heard, "Speak \(id) accepted but not heard after the sound server came back\(lector.context)")
        XCTAssertEqual(lector.finished(id, timeout: heard == nil ? 1 : 10)?.arguments.last, "done",
                       "every id must get its SpeechFinished\(lector.context)")
        return id
    }

    func testSpeechFailsWhenTheServerGoesAwayAndTheDaemonSurvivesTheOutage() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }
        let (id, _) = try stopServerMidSpeech(lector)
        XCTAssertEqual(lector.signals(of: id).filter { $0.member == "SpeechFinished" }.count, 1, lector.context)
        // Down for 3.5 s: three or more reconnection attempts fail meanwhile.
        try assertRefusedWhileDown(lector, for: 3.5)
        XCTAssertTrue(lector.daemon.isRunning, lector.context)
    }

    func testTheDaemonReconnectsAfterAnIdleRestart() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }
        let first = try lector.speak("Before.")
        XCTAssertEqual(lector.finished(first, timeout: 10)?.arguments.last, "done", lector.context)

        lector.session.stopSoundServer()
        try assertRefusedWhileDown(lector, for: 0.5)
        let again = try assertSpeaksAgainAfterRestart(lector)
        XCTAssertGreaterThan(again, first)
    }

    /// The server stays, but the daemon's playback stream is killed (its only sink is removed,
    /// so no other sink can take the stream over): that speech fails; once a sink is back the
    /// daemon plays on a new stream.
    func testAKilledPlaybackStreamFailsTheSpeechAndTheNextOneIsHeard() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }
        let sink = lector.recording.sink
        let called = Date()
        let id = try lector.speak(Texts.long)
        XCTAssertNotNil(lector.recording.waitForSound(after: called, timeout: 2), "not heard\(lector.context)")
        XCTAssertNotNil(lector.sound(after: Date().addingTimeInterval(0.8), timeout: 2), lector.context)

        let modules = try lector.session.run("pactl", ["list", "short", "modules"])
        let module = try XCTUnwrap(modules.stdout.split(separator: "\n").first { $0.contains("sink_name=\(sink) ") }
            .flatMap { $0.split(separator: "\t").first.map(String.init) }, "\(modules)")
        let unload = try lector.session.run("pactl", ["unload-module", module])
        XCTAssertTrue(unload.succeeded, "\(unload)")

        XCTAssertEqual(lector.finished(id, timeout: 5)?.arguments, [String(id), "failed"], lector.context)
        XCTAssertTrue(lector.daemon.isRunning, lector.context)

        let load = try lector.session.run("pactl", ["load-module", "module-null-sink", "sink_name=\(sink)",
                                                    "rate=\(MonitorRecording.sampleRate)", "channels=1"])
        XCTAssertTrue(load.succeeded, "\(load)")
        XCTAssertTrue(try lector.session.run("pactl", ["set-default-sink", sink]).succeeded)
        let recording = try lector.session.record(sink: sink)

        let (id2, heard) = try speakOnce(lector, recording, "A new stream.")
        XCTAssertNotNil(heard, "Speak \(id2) accepted but not heard after the stream was killed\(lector.context)")
        XCTAssertEqual(lector.finished(id2, timeout: heard == nil ? 1 : 10)?.arguments.last, "done",
                       "every id must get its SpeechFinished\(lector.context)")
    }

    /// With the server up but no sink at all (a headset unplugged on a machine with no other
    /// output), opening a stream fails; the daemon must retry calmly, not in a tight loop.
    func testWithoutAnySinkTheDaemonRetriesCalmly() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }
        let sink = lector.recording.sink
        let first = try lector.speak("Before.")
        XCTAssertEqual(lector.finished(first, timeout: 10)?.arguments.last, "done", lector.context)

        let modules = try lector.session.run("pactl", ["list", "short", "modules"])
        let module = try XCTUnwrap(modules.stdout.split(separator: "\n").first { $0.contains("sink_name=\(sink) ") }
            .flatMap { $0.split(separator: "\t").first.map(String.init) }, "\(modules)")
        XCTAssertTrue(try lector.session.run("pactl", ["unload-module", module]).succeeded)
        usleep(100_000)  // the stream's failure reaches the daemon

        // One second without a sink, measured: CPU time used and stream reopen attempts logged.
        let logBefore = lector.daemon.standardError.components(separatedBy: "stream failed").count
        let cpuBefore = try XCTUnwrap(Self.cpuSeconds(of: lector.daemon.pid))
        Thread.sleep(forTimeInterval: 1)   // the measuring window
        let cpu = try XCTUnwrap(Self.cpuSeconds(of: lector.daemon.pid)) - cpuBefore
        let attempts = lector.daemon.standardError.components(separatedBy: "stream failed").count - logBefore
        XCTAssertLessThan(cpu, 0.2, "the daemon used \(cpu) s of CPU in 1 s without a sink (\(attempts) stream attempts)")
        XCTAssertLessThanOrEqual(attempts, 5, "\(attempts) stream reopen attempts in 1 s without a sink")
        lector.assertServing("without a sink")

        // A sink again: speech is heard.
        XCTAssertTrue(try lector.session.run("pactl", ["load-module", "module-null-sink", "sink_name=\(sink)",
                                                       "rate=\(MonitorRecording.sampleRate)", "channels=1"]).succeeded)
        XCTAssertTrue(try lector.session.run("pactl", ["set-default-sink", sink]).succeeded)
        let recording = try lector.session.record(sink: sink)
        let (id, heard) = try speakOnce(lector, recording, "A sink again.")
        XCTAssertNotNil(heard, "not heard once a sink was back\(lector.context)")
        XCTAssertEqual(lector.finished(id, timeout: heard == nil ? 1 : 10)?.arguments.last, "done", lector.context)
    }

    /// Polls Speak until accepted (5 s at most), then waits up to 3 s for it to be heard.
    private func speakOnce(_ lector: LectorFixture, _ recording: MonitorRecording,
                           _ text: String) throws -> (id: UInt64, heard: Date?) {
        let deadline = Date(timeIntervalSinceNow: 5)
        var last: ProcessResult?
        while Date() < deadline && lector.daemon.isRunning {
            let called = Date()
            let result = try lector.call("Speak", [text, "{}"])
            last = result
            if result.succeeded, let id = LectorFixture.uint64(in: result.stdout) {
                return (id, recording.waitForSound(after: called, timeout: 3))
            }
            usleep(200_000)
        }
        throw TestKitError.failed("Speak never accepted: \(String(describing: last))\(lector.context)")
    }

    /// utime + stime of a process, from /proc.
    static func cpuSeconds(of pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let closing = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: closing)...].split(separator: " ")
        // After the name: state is field 3, utime 14 and stime 15 (1-based) → indices 11 and 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The brief's scenario: a restart while a long text speaks, then new speech must be heard.
    func testTheDaemonSpeaksAgainAfterARestartMidSpeech() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }
        let (_, waiting) = try stopServerMidSpeech(lector)
        try assertRefusedWhileDown(lector, for: 0.5)
        let again = try assertSpeaksAgainAfterRestart(lector)
        XCTAssertGreaterThan(again, waiting)
    }
}
