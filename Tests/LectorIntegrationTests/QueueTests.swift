import Foundation
import LectorTestKit
import XCTest

/// Speeches queue: each is heard to its end before the next starts.
final class QueueTests: XCTestCase {
    func testTwoSpeechesBackToBackAreBothHeardInOrder() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }
        let recording = lector.recording

        let called = Date()
        let first = try lector.speak("First sentence.")
        let second = try lector.speak("Second sentence.")
        XCTAssertGreaterThan(second, first, "ids increase")

        let firstFinished = try XCTUnwrap(lector.finished(first, timeout: 10), lector.context)
        let secondStarted = try XCTUnwrap(lector.started(second, timeout: 10), lector.context)
        let secondFinished = try XCTUnwrap(lector.finished(second, timeout: 10), lector.context)
        XCTAssertEqual(firstFinished.arguments.last, "done", lector.context)
        XCTAssertEqual(secondFinished.arguments.last, "done", lector.context)

        let order = lector.watcher.signals().filter { $0.member != "SpeakingRange" }.map { "\($0.member) \($0.arguments[0])" }
        XCTAssertEqual(order, ["SpeechStarted \(first)", "SpeechFinished \(first)",
                               "SpeechStarted \(second)", "SpeechFinished \(second)"], lector.context)
        XCTAssertLessThanOrEqual(firstFinished.receivedAt, secondStarted.receivedAt)

        // Both were heard: sound before the first ended, and sound again once the second started.
        let firstSound = try XCTUnwrap(recording.firstSound(after: called), "nothing heard\(lector.context)")
        XCTAssertLessThan(firstSound, firstFinished.receivedAt)
        XCTAssertTrue(recording.waitForSilence(quiet: 0.3, timeout: 5))
        let secondSound = try XCTUnwrap(recording.firstSound(after: secondStarted.receivedAt.addingTimeInterval(-0.15)),
                                        "the second speech was not heard\(lector.context)")
        XCTAssertLessThan(secondSound, secondFinished.receivedAt)
        XCTAssertGreaterThan(recording.soundDuration(after: secondStarted.receivedAt.addingTimeInterval(-0.15)), 0.4,
                             "the second speech was cut short\(lector.context)")
        XCTAssertGreaterThan(recording.soundDuration(after: called) - recording.soundDuration(after: firstFinished.receivedAt),
                             0.4, "the first speech was cut short\(lector.context)")

        // A later Speak gets a still larger id.
        let third = try lector.speak("Third.")
        XCTAssertGreaterThan(third, second)
        XCTAssertEqual(lector.finished(third, timeout: 10)?.arguments.last, "done", lector.context)
    }
}
