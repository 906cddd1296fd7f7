import Foundation
import LectorTestKit
import XCTest

/// Speech belongs to the daemon, not to the connection that asked for it: clients like
/// `notify-send`-style one-shots call Speak and leave at once.
final class ClientDisconnectTests: XCTestCase {
    func testSpeechContinuesAfterTheCallingClientDisconnects() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }
        let recording = lector.recording

        // gdbus call is a short-lived client: it exits (and leaves the bus) right after the reply.
        let called = Date()
        let id = try lector.speak(Texts.long)
        let clientGone = Date()
        XCTAssertNotNil(recording.waitForSound(after: called, timeout: 2), "not heard\(lector.context)")

        // Well after the client left, the speech is still being heard and its words announced.
        XCTAssertNotNil(lector.sound(after: clientGone.addingTimeInterval(1.5), timeout: 2),
                        "speech stopped after its client disconnected\(lector.context)")
        XCTAssertNil(lector.watcher.signals(named: "SpeechFinished").first { $0.arguments.first == String(id) },
                     "speech ended after its client disconnected\(lector.context)")
        XCTAssertTrue(lector.ranges(of: id).contains { $0.receivedAt > clientGone.addingTimeInterval(1) }, lector.context)

        // And the daemon keeps answering: a second Speak is queued behind it.
        lector.assertServing("after the client left")
        let next = try lector.speak("Behind it.")
        XCTAssertGreaterThan(next, id)
        XCTAssertTrue(try lector.call("Stop", []).succeeded)
        XCTAssertEqual(lector.finished(id, timeout: 3)?.arguments.last, "cancelled", lector.context)
        XCTAssertEqual(lector.finished(next, timeout: 3)?.arguments.last, "cancelled", lector.context)
    }

    /// A client that sends Speak and disconnects without reading the reply (the daemon's reply
    /// goes nowhere) must not disturb the daemon either.
    func testSpeakWithoutWaitingForTheReplyIsStillHeard() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }
        let recording = lector.recording

        let called = Date()
        let fireAndForget = try lector.session.run(
            "busctl", ["--user", "--expect-reply=no", "call", LectorFixture.service, LectorFixture.objectPath,
                       LectorFixture.interface, "Speak", "sa{sv}", "Fire and forget, then listen.", "0"])
        XCTAssertTrue(fireAndForget.succeeded, "\(fireAndForget)")
        XCTAssertNotNil(recording.waitForSound(after: called, timeout: 3), "not heard\(lector.context)")
        let finished = try XCTUnwrap(lector.watcher.wait(timeout: 10) { $0.member == "SpeechFinished" }, lector.context)
        XCTAssertEqual(finished.arguments.last, "done", lector.context)

        lector.assertServing("after a fire-and-forget client")
        let id = try lector.speak("And again.")
        XCTAssertEqual(lector.finished(id, timeout: 10)?.arguments.last, "done", lector.context)
    }

    /// A client killed while the daemon is busy with its call.
    func testAClientKilledMidCallDoesNotDisturbTheDaemon() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }

        let id = try lector.speak(Texts.long)
        XCTAssertNotNil(lector.started(id, timeout: 5), lector.context)
        // A caller SIGKILLed around the time its Speak reaches the daemon.
        let client = try lector.session.spawn("gdbus", LectorFixture.gdbusCall("Speak", ["Killed caller.", "{}"]))
        client.terminate(signal: SIGKILL, grace: 1)
        XCTAssertNotNil(lector.sound(after: Date().addingTimeInterval(0.5), timeout: 2),
                        "the current speech stopped\(lector.context)")
        lector.assertServing("after a client was killed")
        XCTAssertTrue(try lector.call("Stop", []).succeeded)
        XCTAssertEqual(lector.finished(id, timeout: 3)?.arguments.last, "cancelled", lector.context)
    }
}
