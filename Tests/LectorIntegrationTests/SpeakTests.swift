import Foundation
import LectorTestKit
import XCTest

/// Speak is heard on the sound server, and SpeechStarted/SpeechFinished follow what is heard.
final class SpeakTests: XCTestCase {
    func testSpeechIsHeardAndFinishedIsAnnouncedWhenTheLastSoundIsHeard() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }
        let recording = lector.recording

        let called = Date()
        let id = try lector.speak(Texts.short)
        let firstSound = try XCTUnwrap(recording.waitForSound(after: called, timeout: 2),
                                       "no sound within 2 s of Speak\(lector.context)")

        let started = try XCTUnwrap(lector.started(id, timeout: 5), "no SpeechStarted(\(id))\(lector.context)")
        let finished = try XCTUnwrap(lector.finished(id, timeout: 10), "no SpeechFinished(\(id))\(lector.context)")
        XCTAssertEqual(finished.arguments, [String(id), "done"], lector.context)
        XCTAssertTrue(recording.waitForSilence(quiet: 0.3, timeout: 5), "sound never stopped\(lector.context)")

        let lastSound = try XCTUnwrap(recording.lastSound(after: called))
        let duration = recording.soundDuration(after: called)
        XCTAssertGreaterThan(duration, 1, "\"\(Texts.short)\" cannot take less than a second to say")
        XCTAssertLessThan(duration, 4, "\"\(Texts.short)\" should not take 4 s to say")

        // Announced when heard, not when synthesized (synthesis is done long before the end).
        XCTAssertGreaterThanOrEqual(finished.receivedAt, lastSound.addingTimeInterval(-0.15),
                                    "SpeechFinished came \(finished.receivedAt.since(lastSound)) after the last sound, i.e. before it was heard\(lector.context)")
        XCTAssertLessThan(finished.receivedAt, lastSound.addingTimeInterval(1.0),
                          "SpeechFinished came \(finished.receivedAt.since(lastSound)) after the last sound\(lector.context)")
        XCTAssertGreaterThanOrEqual(started.receivedAt, firstSound.addingTimeInterval(-0.15),
                                    "SpeechStarted came \(started.receivedAt.since(firstSound)) after the first sound, i.e. before it was heard\(lector.context)")
        XCTAssertLessThan(started.receivedAt, firstSound.addingTimeInterval(0.5),
                          "SpeechStarted came \(started.receivedAt.since(firstSound)) after the first sound\(lector.context)")

        // Started, words, Finished: in that order, one each of Started and Finished.
        let members = lector.signals(of: id).map(\.member)
        XCTAssertEqual(members.first, "SpeechStarted", lector.context)
        XCTAssertEqual(members.last, "SpeechFinished", lector.context)
        XCTAssertEqual(members.filter { $0 == "SpeechStarted" }.count, 1, lector.context)
        XCTAssertEqual(members.filter { $0 == "SpeechFinished" }.count, 1, lector.context)
        XCTAssertTrue(members.contains("SpeakingRange"), lector.context)
        XCTAssertTrue(lector.daemon.isRunning, lector.context)
    }

    /// Options change what is heard: volume 0.2 is clearly quieter than 1.0, rate 2 is clearly shorter.
    func testVolumeAndRateOptionsChangeWhatIsHeard() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }
        let recording = lector.recording
        let text = "Testing one two three."

        func say(_ options: String) throws -> (peak: Int, duration: TimeInterval) {
            XCTAssertTrue(recording.waitForSilence(quiet: 0.2, timeout: 5))
            let called = Date()
            let id = try lector.speak(text, options)
            let finished = lector.finished(id, timeout: 10)
            XCTAssertEqual(finished?.arguments.last, "done", "\(options)\(lector.context)")
            XCTAssertTrue(recording.waitForSilence(quiet: 0.2, timeout: 5))
            return (recording.peakAmplitude(after: called), recording.soundDuration(after: called))
        }
        let normal = try say("{}")
        let quiet = try say("{'volume': <0.2>}")
        let fast = try say("{'rate': <2.0>}")
        XCTAssertGreaterThan(normal.peak, 1000)
        XCTAssertLessThan(Double(quiet.peak), Double(normal.peak) * 0.6, "volume 0.2 peak \(quiet.peak) vs \(normal.peak)")
        XCTAssertGreaterThan(quiet.peak, 0, "volume 0.2 must still be audible")
        XCTAssertLessThan(fast.duration, normal.duration * 0.8, "rate 2: \(fast.duration) s vs \(normal.duration) s")
    }
}
