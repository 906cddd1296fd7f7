import Foundation
import LectorTestKit
import XCTest

/// What the listener feels of narration's buffering (issue 16: seconds of audio on the sound
/// server): a pause is silent at once, words are announced when they are heard, Position follows
/// the sound, and a rate change is heard at the next word. Measured on the sink's monitor (5 ms
/// chunks, each sample dated by its chunk's arrival), on PulseAudio and PipeWire alike.
final class HeardTimingTests: SharedDaemonTestCase {
    /// Sound after a pause at most this long after the pause's reply (10 ms, plus a 5 ms chunk of
    /// the monitor recording's dating).
    static let pauseToSilence: TimeInterval = 0.015
    /// A word's SpeakingRange within this of its first sound on the monitor.
    static let heardTolerance: TimeInterval = 0.030

    /// Pause goes silent at once, wherever it lands in a word; nothing is heard until Play, which
    /// is heard at once too.
    func testPauseIsSilentWithinTenMilliseconds() throws {
        let book = try BookFixtures.require(BookFixtures.wasteland)
        try fixture.openAndHear(book, chapter: 1)
        var generator = SplitMix64(seed: 0x16)   // the same moments in every run
        var lateness: [TimeInterval] = []
        for attempt in 0..<6 {
            // Somewhere in the speech: 0.4 to 0.9 s after it was last heard to start.
            Thread.sleep(forTimeInterval: 0.4 + Double(generator.next() % 500) / 1000)
            let asked = Date()
            let pause = try fixture.busCall(PlayerFixture.player, "Pause", [])
            let replied = Date()
            XCTAssertTrue(pause.succeeded, "\(pause)")
            Thread.sleep(forTimeInterval: 0.3)
            guard let last = fixture.recording.lastSound(after: asked.addingTimeInterval(-1)) else {
                XCTFail("attempt \(attempt): nothing heard in the second before the pause\(fixture.context)")
                continue
            }
            lateness.append(last.timeIntervalSince(replied))
            XCTAssertLessThanOrEqual(last.timeIntervalSince(replied), Self.pauseToSilence,
                                     "attempt \(attempt): sound \(last.relative(to: replied)) after the Pause reply "
                                     + "(asked \(asked.relative(to: replied)))\(fixture.context)")
            XCTAssertNil(fixture.sound(after: replied.addingTimeInterval(Self.pauseToSilence), timeout: 0.2),
                         "attempt \(attempt): sound while paused\(fixture.context)")

            let played = Date()
            XCTAssertTrue(try fixture.busCall(PlayerFixture.player, "Play", []).succeeded)
            let resumed = try XCTUnwrap(fixture.sound(after: played, timeout: 3), "attempt \(attempt): not heard after Play\(fixture.context)")
            XCTAssertLessThan(resumed.timeIntervalSince(played), 0.3, "attempt \(attempt): Play heard after \(resumed.relative(to: played))")
        }
        print("pause -> last sound, relative to the reply (s): \(lateness.map { String(format: "%+.4f", $0) })")
    }

    /// Each word that starts after a pause in the speech (words starting with a vowel, so their
    /// first sound is loud from the start, separated by colons: espeak-ng pauses about 0.2 s
    /// there, and narration keeps them in one sentence, one synthesis) is announced within 30 ms
    /// of that sound.
    func testSpeakingRangeComesWithin30MillisecondsOfTheWordsFirstSound() throws {
        let words = ["Alpha", "echo", "India", "oscar", "umbrella", "amber", "olive", "ever", "open", "under",
                     "apple", "eagle", "island", "orange", "ultra", "arrow", "ocean", "evening"]
        let body = words.joined(separator: ": ") + "."
        let book = try TextBooks.write([body], named: "onsets.txt", in: fixture.session.directory)
        let opened = try fixture.openAndHear(book)
        let trackID = try fixture.trackID()
        let ranges = { self.fixture.signals("SpeakingRange", since: opened).filter { $0.arguments.first == trackID } }
        XCTAssertTrue(poll(timeout: 20) { ranges().count >= words.count }, "\(ranges().count) words announced\(fixture.context)")
        let end = (ranges().last?.receivedAt ?? Date()).addingTimeInterval(1)
        let onsets = fixture.soundOnsets(from: opened, to: end, afterSilence: 0.12)

        var offsets: [TimeInterval] = []
        for signal in ranges() {
            guard let nearest = onsets.min(by: { abs($0.timeIntervalSince(signal.receivedAt)) < abs($1.timeIntervalSince(signal.receivedAt)) }),
                  abs(nearest.timeIntervalSince(signal.receivedAt)) < 0.15 else { continue }
            offsets.append(signal.receivedAt.timeIntervalSince(nearest))
        }
        let described = offsets.map { String(format: "%+.0f", $0 * 1000) }.joined(separator: " ")
        print("SpeakingRange - first sound (ms): \(described)")
        XCTAssertGreaterThanOrEqual(offsets.count, words.count * 2 / 3,
                                    "only \(offsets.count) of \(ranges().count) words matched a sound onset: \(described); "
                                    + "onsets \(onsets.map { $0.relative(to: opened) })\(fixture.context)")
        for offset in offsets {
            XCTAssertLessThanOrEqual(abs(offset), Self.heardTolerance,
                                     "SpeakingRange \(String(format: "%+.1f", offset * 1000)) ms from the word's first sound "
                                     + "(all: \(described))\(fixture.context)")
        }
    }

    /// Position follows what is heard: its advance from a reading while playing to the value a
    /// pause froze matches the time between them (the pause froze it at the sound's stop).
    func testPositionFrozenByAPauseMatchesTheTimeHeard() throws {
        let book = try BookFixtures.require(BookFixtures.wasteland)
        try fixture.openAndHear(book, chapter: 1)
        Thread.sleep(forTimeInterval: 1.5)
        for attempt in 0..<3 {
            let before = Date()
            let first = try fixture.position()
            let read = Date()
            Thread.sleep(forTimeInterval: 1.2)
            let asked = Date()
            XCTAssertTrue(try fixture.busCall(PlayerFixture.player, "Pause", []).succeeded)
            let replied = Date()
            let frozen = try fixture.position()
            // The first reading was taken between `before` and `read`; the pause between `asked` and `replied`.
            let shortest = asked.timeIntervalSince(read), longest = replied.timeIntervalSince(before)
            let advanced = Double(frozen - first) / 1e6
            XCTAssertGreaterThanOrEqual(advanced, shortest - Self.heardTolerance,
                                        "attempt \(attempt): Position advanced \(advanced) s in \(shortest)...\(longest) s\(fixture.context)")
            XCTAssertLessThanOrEqual(advanced, longest + Self.heardTolerance,
                                     "attempt \(attempt): Position advanced \(advanced) s in \(shortest)...\(longest) s\(fixture.context)")
            XCTAssertTrue(try fixture.busCall(PlayerFixture.player, "Play", []).succeeded)
            XCTAssertNotNil(fixture.sound(after: replied, timeout: 3))
            Thread.sleep(forTimeInterval: 0.5)
        }
    }

    /// Rate 2 is heard at the next word, not once the seconds the server holds have played: the
    /// words announced in the 1.5 s after the change come about twice as fast as before it.
    func testARateChangeIsHeardAtTheNextWord() throws {
        let book = try TextBooks.write(TextBooks.runOnChapters, named: "rate.txt", in: fixture.session.directory)
        let opened = try fixture.openAndHear(book)
        Thread.sleep(until: opened.addingTimeInterval(4))
        let trackID = try fixture.trackID()
        func words(_ from: Date, _ to: Date) -> Int {
            fixture.signals("SpeakingRange", since: from).filter { $0.arguments.first == trackID && $0.receivedAt < to }.count
        }
        let changed = Date()
        XCTAssertTrue(try fixture.setProperty("Rate", "d", "2.0").succeeded)
        Thread.sleep(until: changed.addingTimeInterval(1.9))
        let before = words(changed.addingTimeInterval(-2.5), changed)
        let after = words(changed.addingTimeInterval(0.3), changed.addingTimeInterval(1.8))
        // Per second: 2.5 s before, 1.5 s after (from 0.3 s: the next word, and the one after it).
        let speedup = (Double(after) / 1.5) / max(1, Double(before) / 2.5)
        XCTAssertGreaterThan(speedup, 1.5, "\(before) words in 2.5 s before Rate 2, \(after) in the 1.5 s from 0.3 s after it\(fixture.context)")
        XCTAssertLessThan(fixture.longestSilence(from: changed, to: changed.addingTimeInterval(1.5)), 0.4,
                          "a gap after the rate change\(fixture.context)")
    }
}
