import Foundation
import LectorTestKit
import XCTest

/// PulseAudio going away mid-speech fails that speech, not the daemon; when the server is back
/// the daemon reconnects by itself (it retries every second) and speaks again.
final class SoundServerRestartTests: XCTestCase {
    func testSpeechFailsWhenTheServerGoesAwayAndTheDaemonReconnectsWhenItReturns() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }

        let called = Date()
        let id = try lector.speak(Texts.long)
        XCTAssertNotNil(lector.recording.waitForSound(after: called, timeout: 2), "not heard\(lector.context)")
        XCTAssertNotNil(lector.started(id, timeout: 5), lector.context)
        let waiting = try lector.speak("Waiting in the queue.")

        lector.session.stopSoundServer()
        let finished = try XCTUnwrap(lector.finished(id, timeout: 5),
                                     "no SpeechFinished after the sound server stopped\(lector.context)")
        XCTAssertEqual(finished.arguments, [String(id), "failed"], lector.context)
        XCTAssertEqual(lector.finished(waiting, timeout: 5)?.arguments, [String(waiting), "failed"],
                       "the waiting speech cannot be heard either\(lector.context)")
        XCTAssertTrue(lector.daemon.isRunning, "the daemon died with the sound server\(lector.context)")
        lector.assertServing("while the sound server is down")
        XCTAssertEqual(lector.signals(of: id).filter { $0.member == "SpeechFinished" }.count, 1, lector.context)

        // While the server is down, Speak is refused with SoundServerUnavailable (the daemon
        // checks its connection state). In the instant of a reconnection attempt the state is
        // "connecting" and Speak is accepted; such a speech must then end as failed.
        var refusals = 0
        for attempt in 0..<3 {
            let result = try lector.call("Speak", ["Nobody can hear this.", "{}"])
            if result.succeeded {
                let accepted = try XCTUnwrap(LectorFixture.uint64(in: result.stdout))
                XCTAssertEqual(lector.finished(accepted, timeout: 5)?.arguments.last, "failed",
                               "attempt \(attempt): accepted while the server is down\(lector.context)")
            } else {
                lector.assertError(result, "SoundServerUnavailable", "Speak while the sound server is down")
                refusals += 1
            }
            usleep(300_000)
        }
        XCTAssertGreaterThan(refusals, 0, "Speak was never refused while the sound server was down\(lector.context)")
        XCTAssertTrue(lector.daemon.isRunning, lector.context)

        // Back again: within a few seconds the daemon accepts Speak and is heard.
        try lector.session.startSoundServer()
        let restarted = Date()
        let recording = try lector.session.record()
        var acceptedID: UInt64?
        var acceptedAt = Date()
        var lastResult: ProcessResult?
        while acceptedID == nil && Date().timeIntervalSince(restarted) < 5 {
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
        let again = try XCTUnwrap(acceptedID, "Speak still refused 5 s after the restart: \(String(describing: lastResult))\(lector.context)")
        XCTAssertLessThan(acceptedAt.timeIntervalSince(restarted), 5)
        XCTAssertNotNil(recording.waitForSound(after: acceptedAt, timeout: 3),
                        "not heard after the sound server came back\(lector.context)\(lector.session.diagnostics)")
        XCTAssertEqual(lector.finished(again, timeout: 10)?.arguments.last, "done", lector.context)
        XCTAssertGreaterThan(again, waiting)
    }
}
