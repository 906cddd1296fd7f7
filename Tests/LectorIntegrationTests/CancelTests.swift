import Foundation
import LectorTestKit
import XCTest

/// Cancel and Stop silence the speaker at once and announce `cancelled` for every id they end.
final class CancelTests: XCTestCase {
    /// How long after the reply to Cancel/Stop sound may still reach the monitor.
    private let silenceSlack: TimeInterval = 0.15

    func testCancelMidWordSilencesAtOnceAndTheNextSpeechIsHeard() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }
        let recording = lector.recording

        let called = Date()
        let id = try lector.speak(Texts.long)
        let firstSound = try XCTUnwrap(recording.waitForSound(after: called, timeout: 2), "not heard\(lector.context)")
        XCTAssertNotNil(lector.started(id, timeout: 5), lector.context)
        // Mid-speech, and at a moment where something is audible (mid-word, not between sentences).
        Thread.sleep(until: firstSound.addingTimeInterval(0.7))
        XCTAssertNotNil(recording.waitForSound(after: Date(), timeout: 1), "no longer speaking before Cancel\(lector.context)")

        let cancelSent = Date()
        let cancel = try lector.call("Cancel", [String(id)])
        let replied = Date()
        XCTAssertTrue(cancel.succeeded, "\(cancel)\(lector.context)")

        let finished = try XCTUnwrap(lector.finished(id, timeout: 2), "no SpeechFinished after Cancel\(lector.context)")
        XCTAssertEqual(finished.arguments, [String(id), "cancelled"], lector.context)
        XCTAssertLessThan(finished.receivedAt, replied.addingTimeInterval(0.5), lector.context)
        XCTAssertTrue(recording.waitForSilence(quiet: 0.3, timeout: 3), "still sounding after Cancel\(lector.context)")
        let lastSound = recording.lastSound(after: cancelSent) ?? cancelSent
        XCTAssertLessThan(lastSound, replied.addingTimeInterval(silenceSlack),
                          "sound until \(lastSound.since(replied)) after the Cancel reply\(lector.context)")

        // Nothing more about that id: no word after the end, no second SpeechFinished.
        let signals = lector.signals(of: id)
        let finishedIndex = try XCTUnwrap(signals.firstIndex { $0.member == "SpeechFinished" })
        XCTAssertEqual(signals.count, finishedIndex + 1, "signals after SpeechFinished: \(signals[finishedIndex...])")

        // It is gone now: cancelling it again is NoSuchSpeech.
        lector.assertError(try lector.call("Cancel", [String(id)]), "NoSuchSpeech", "second Cancel(\(id))")

        // The stream was corked and flushed; the next speech must still be heard.
        let again = Date()
        let next = try lector.speak("Next one.")
        XCTAssertGreaterThan(next, id)
        XCTAssertNotNil(recording.waitForSound(after: again, timeout: 2), "speech after Cancel not heard\(lector.context)")
        XCTAssertEqual(lector.finished(next, timeout: 10)?.arguments.last, "done", lector.context)
    }

    func testStopCancelsTheCurrentSpeechThenTheQueueInOrder() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }
        let recording = lector.recording

        let called = Date()
        let first = try lector.speak(Texts.long)
        let second = try lector.speak("Second in the queue.")
        let third = try lector.speak("Third in the queue.")
        XCTAssertLessThan(first, second)
        XCTAssertLessThan(second, third)
        XCTAssertNotNil(recording.waitForSound(after: called, timeout: 2), "not heard\(lector.context)")
        XCTAssertNotNil(lector.started(first, timeout: 5), lector.context)
        XCTAssertNotNil(lector.sound(after: Date().addingTimeInterval(0.3), timeout: 2), lector.context)

        let stopSent = Date()
        let stop = try lector.call("Stop", [])
        let replied = Date()
        XCTAssertTrue(stop.succeeded, "\(stop)\(lector.context)")

        for id in [first, second, third] {
            XCTAssertEqual(lector.finished(id, timeout: 3)?.arguments, [String(id), "cancelled"], lector.context)
        }
        XCTAssertTrue(recording.waitForSilence(quiet: 0.3, timeout: 3), "still sounding after Stop\(lector.context)")
        let lastSound = recording.lastSound(after: stopSent) ?? stopSent
        XCTAssertLessThan(lastSound, replied.addingTimeInterval(silenceSlack),
                          "sound until \(lastSound.since(replied)) after the Stop reply\(lector.context)")

        let finishedOrder = lector.watcher.signals(named: "SpeechFinished").compactMap { UInt64($0.arguments[0]) }
        XCTAssertEqual(finishedOrder, [first, second, third], "current first, then the queue in order\(lector.context)")
        let startedIDs = lector.watcher.signals(named: "SpeechStarted").compactMap { UInt64($0.arguments[0]) }
        XCTAssertEqual(startedIDs, [first], "queued speeches must never start after Stop\(lector.context)")

        // Stop with nothing to stop is fine, and the daemon still speaks.
        XCTAssertTrue(try lector.call("Stop", []).succeeded)
        let again = Date()
        let next = try lector.speak("Still here.")
        XCTAssertNotNil(recording.waitForSound(after: again, timeout: 2), "speech after Stop not heard\(lector.context)")
        XCTAssertEqual(lector.finished(next, timeout: 10)?.arguments.last, "done", lector.context)
    }

    func testCancelOfAWaitingSpeechLeavesTheCurrentOneSpeaking() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }
        let recording = lector.recording

        let called = Date()
        let current = try lector.speak(Texts.long)
        let waiting = try lector.speak("I will never be heard.")
        XCTAssertNotNil(recording.waitForSound(after: called, timeout: 2), "not heard\(lector.context)")

        let cancel = try lector.call("Cancel", [String(waiting)])
        let replied = Date()
        XCTAssertTrue(cancel.succeeded, "\(cancel)\(lector.context)")
        XCTAssertEqual(lector.finished(waiting, timeout: 2)?.arguments, [String(waiting), "cancelled"], lector.context)
        XCTAssertNotNil(lector.sound(after: replied.addingTimeInterval(0.5), timeout: 2),
                        "the current speech stopped when a waiting one was cancelled\(lector.context)")
        XCTAssertNil(lector.watcher.signals(named: "SpeechFinished").first { $0.arguments.first == String(current) },
                     lector.context)

        XCTAssertTrue(try lector.call("Cancel", [String(current)]).succeeded)
        XCTAssertEqual(lector.finished(current, timeout: 2)?.arguments.last, "cancelled", lector.context)
        XCTAssertTrue(recording.waitForSilence(quiet: 0.3, timeout: 3))
        XCTAssertTrue(lector.signals(of: waiting).allSatisfy { $0.member == "SpeechFinished" },
                      "a cancelled waiting speech must not start\(lector.context)")
    }
}
