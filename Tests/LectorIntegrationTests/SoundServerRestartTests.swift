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
