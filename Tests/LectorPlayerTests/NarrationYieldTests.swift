import Foundation
import LectorTestKit
import XCTest

/// Issue 5: book narration holds (pauses, not ducks) while an announcement speaks, without MPRIS
/// status flicker, and goes on from the word it was at; a pause pressed meanwhile is kept.
///
/// The announcement is SSML with a 1.5 s <break/>: on the sink monitor that is 1.5 s of silence
/// only if narration is really silent meanwhile (the book's sentence pauses are far shorter).
final class NarrationYieldTests: SharedDaemonTestCase {
    static let lector1 = "io.github.lector.Lector1"
    static let announcement = "<speak>Attention please. <break time=\"1500ms\"/> The announcement ends here.</speak>"

    override func tearDown() {
        _ = try? fixture?.call(Self.lector1, "Stop", [], path: PlayerFixture.narratorPath)
        _ = try? fixture?.playerctl("stop")
        super.tearDown()
    }

    // MARK: - Helpers

    /// Lector1.Speak through gdbus; the id.
    private func speak(_ text: String, _ options: String = "{}", file: StaticString = #filePath, line: UInt = #line) throws -> UInt64 {
        let result = try fixture.call(Self.lector1, "Speak", [text, options], path: PlayerFixture.narratorPath)
        guard result.succeeded, let match = result.stdout.range(of: #"uint64 [0-9]+"#, options: .regularExpression),
              let id = UInt64(result.stdout[match].dropFirst("uint64 ".count)) else {
            XCTFail("Speak failed: \(result)\(fixture.context)", file: file, line: line)
            throw FixtureError("Speak failed: \(result)")
        }
        return id
    }

    private func speechSignal(_ member: String, _ id: UInt64, timeout: TimeInterval) -> ObservedSignal? {
        fixture.watcher.wait(timeout: timeout) {
            $0.interface == Self.lector1 && $0.member == member && $0.arguments.first == String(id)
        }
    }

    private func isNarratorRange(_ signal: ObservedSignal) -> Bool {
        signal.interface == PlayerFixture.narrator && signal.member == "SpeakingRange"
    }

    /// Narrator1.SpeakingRange starts received within [from, to).
    private func narratorRanges(from: Date, to: Date = .distantFuture) -> [ObservedSignal] {
        fixture.watcher.signals(named: "SpeakingRange").filter { isNarratorRange($0) && $0.receivedAt >= from && $0.receivedAt < to }
    }

    private static func start(_ range: ObservedSignal) -> Int? { range.arguments.count == 3 ? Int(range.arguments[1]) : nil }

    private func pausedBecause() throws -> String {
        let value = try fixture.property("PausedBecause", interface: PlayerFixture.narrator, path: PlayerFixture.narratorPath)
        guard let text = value.data as? String else { throw FixtureError("PausedBecause is \(value)") }
        return text
    }

    /// PausedBecause values announced by PropertiesChanged since `since`, in order.
    private func pausedBecauseChanges(since: Date) -> [String] {
        fixture.signals("PropertiesChanged", since: since)
            .filter { $0.path == PlayerFixture.narratorPath && $0.arguments.first == PlayerFixture.narrator }
            .compactMap { PlayerFixture.changed($0)["PausedBecause"] }
    }

    /// The narration word heard when the hold began and the one before it: the last two
    /// Narrator1.SpeakingRange signals before PausedBecause became "announcement" (the daemon emits
    /// both on one connection, so the monitor sees them in the order they were sent). The hold is
    /// the first one at or after `since`.
    private func heldWords(since: Date) -> [Int] {
        let signals = fixture.watcher.signals()
        guard let hold = signals.firstIndex(where: {
            $0.receivedAt >= since && $0.path == PlayerFixture.narratorPath && $0.arguments.first == PlayerFixture.narrator
                && PlayerFixture.changed($0)["PausedBecause"] == "'announcement'"
        }) else { return [] }
        return signals[..<hold].filter(isNarratorRange).suffix(2).compactMap(Self.start)
    }

    /// The longest stretch without sound between two sounds heard within [start, end].
    private func longestGapBetweenSounds(from start: Date, to end: Date) -> TimeInterval {
        guard var cursor = fixture.recording.firstSound(after: start), cursor < end else { return 0 }
        var longest = 0.0
        while let next = fixture.recording.firstSound(after: cursor.addingTimeInterval(0.002)), next < end {
            longest = max(longest, next.timeIntervalSince(cursor))
            cursor = max(cursor.addingTimeInterval(0.002), next)
        }
        return longest
    }

    /// A chapter of a minute of short sentences: no pause in it near as long as the announcement's
    /// break, and a narration that did not yield would speak between its sentences' jobs.
    static let chapters = [
        Array(repeating: ["The cat sat on the warm mat by the door.", "A dog ran across the green park.",
                          "The bird sang in the tall tree all morning.", "Rain fell softly on the old roof."],
              count: 5).joined().joined(separator: " "),
        "The second chapter is short.",
    ]

    /// Opens the book and lets a few words be heard.
    @discardableResult
    private func startNarration(file: StaticString = #filePath, line: UInt = #line) throws -> Date {
        let book = try TextBooks.write(Self.chapters, named: "yield.txt", in: fixture.session.directory)
        let opened = try fixture.openAndHear(book, file: file, line: line)
        XCTAssertTrue(poll(timeout: 15) { narratorRanges(from: opened).count >= 6 },
                      "narration words never came\(fixture.context)", file: file, line: line)
        return opened
    }

    // MARK: - Tests

    func testNarrationHoldsSilentlyDuringAnAnnouncementAndGoesOnFromTheHeldWord() throws {
        try startNarration()
        let before = Date()
        XCTAssertNotNil(fixture.recording.firstSound(after: before.addingTimeInterval(-0.5)), "narration audible before")
        let id = try speak(Self.announcement, "{'ssml': <true>}")
        let started = try XCTUnwrap(speechSignal("SpeechStarted", id, timeout: 10), "announcement never started\(fixture.context)")

        // During the hold: Playing for media controls, PausedBecause says why, Position holds.
        XCTAssertEqual(try fixture.status(), "Playing", "PlaybackStatus during the announcement")
        XCTAssertEqual(try fixture.playerctl("status").stdout.trimmingCharacters(in: .whitespacesAndNewlines), "Playing")
        XCTAssertEqual(try pausedBecause(), "announcement", fixture.context)
        let held = try fixture.position()
        var stillHeld = held
        XCTAssertTrue(try holds(for: 0.6) { stillHeld = try fixture.position(); return abs(stillHeld - held) <= 100_000 },
                      "Position moved from \(held) to \(stillHeld) µs while narration held")

        let finished = try XCTUnwrap(speechSignal("SpeechFinished", id, timeout: 20), "announcement never finished\(fixture.context)")
        XCTAssertEqual(finished.arguments.last, "done", fixture.context)

        // Narration was silent: the break is heard as silence, and no narration word was announced.
        let gap = longestGapBetweenSounds(from: started.receivedAt.addingTimeInterval(-0.1), to: finished.receivedAt)
        XCTAssertGreaterThan(gap, 1.2, "the 1.5 s break was not silent (longest gap \(gap) s): narration went on\(fixture.context)")
        XCTAssertTrue(narratorRanges(from: started.receivedAt, to: finished.receivedAt).isEmpty,
                      "narration words during the announcement: \(narratorRanges(from: started.receivedAt, to: finished.receivedAt))")

        // Afterwards: audible again within a reasonable time, from the held word (or the one before).
        let resumedRange = try XCTUnwrap(fixture.watcher.wait(timeout: 5) { isNarratorRange($0) && $0.receivedAt >= finished.receivedAt },
                                         "no narration word within 5 s after the announcement\(fixture.context)")
        XCTAssertNotNil(fixture.sound(after: resumedRange.receivedAt, timeout: 3), "narration not heard again\(fixture.context)")
        let candidates = heldWords(since: before)
        XCTAssertFalse(candidates.isEmpty, "no narration word before the hold\(fixture.context)")
        XCTAssertTrue(candidates.contains(Self.start(resumedRange) ?? -1),
                      "narration went on at \(resumedRange.raw), not at the held word \(candidates)\(fixture.context)")
        XCTAssertTrue(poll(timeout: 3) { (try? pausedBecause()) == "" }, "PausedBecause after the announcement")
        XCTAssertEqual(pausedBecauseChanges(since: before), ["'announcement'", "''"], fixture.context)

        // No status flicker at all; Seeked tells clients where narration went on.
        XCTAssertEqual(try fixture.status(), "Playing")
        let changes = fixture.playerChanges(since: before).filter { PlayerFixture.changed($0)["PlaybackStatus"] != nil }
        XCTAssertTrue(changes.isEmpty, "PlaybackStatus changed around the announcement: \(changes)")
        let seeked = try XCTUnwrap(fixture.signals("Seeked", since: finished.receivedAt.addingTimeInterval(-0.5)).first,
                                   "no Seeked after the hold\(fixture.context)")
        let seekedTo = try XCTUnwrap(seeked.arguments.first.flatMap { Int64($0) }, seeked.raw)
        XCTAssertEqual(Double(seekedTo), Double(held), accuracy: 500_000, "Seeked to \(seekedTo), held at \(held)")
        XCTAssertTrue(poll(timeout: 5) { (try? fixture.position()) ?? 0 > held + 300_000 }, "Position does not move on after the hold")
    }

    func testBackToBackAnnouncementsHoldNarrationUntilTheLastOneEnds() throws {
        try startNarration()
        let before = Date()
        let first = try speak("First announcement.")
        let second = try speak("Second announcement.")
        let started = try XCTUnwrap(speechSignal("SpeechStarted", first, timeout: 10), fixture.context)
        let firstEnded = try XCTUnwrap(speechSignal("SpeechFinished", first, timeout: 15), fixture.context)
        let secondEnded = try XCTUnwrap(speechSignal("SpeechFinished", second, timeout: 15), fixture.context)
        XCTAssertEqual(firstEnded.arguments.last, "done")
        XCTAssertEqual(secondEnded.arguments.last, "done")
        XCTAssertTrue(narratorRanges(from: started.receivedAt, to: secondEnded.receivedAt).isEmpty,
                      "narration spoke between the announcements\(fixture.context)")
        let resumed = try XCTUnwrap(fixture.watcher.wait(timeout: 5) { isNarratorRange($0) && $0.receivedAt >= secondEnded.receivedAt },
                                    "narration did not go on\(fixture.context)")
        XCTAssertTrue(heldWords(since: before).contains(Self.start(resumed) ?? -1), "went on at \(resumed.raw)\(fixture.context)")
        XCTAssertTrue(poll(timeout: 3) { pausedBecauseChanges(since: before).count >= 2 })
        XCTAssertEqual(pausedBecauseChanges(since: before), ["'announcement'", "''"], "one hold for both\(fixture.context)")
        XCTAssertTrue(fixture.playerChanges(since: before).filter { PlayerFixture.changed($0)["PlaybackStatus"] != nil }.isEmpty)
    }

    func testPausingDuringAnAnnouncementKeepsNarrationPausedAfterIt() throws {
        try startNarration()
        let before = Date()
        let id = try speak(Self.announcement, "{'ssml': <true>}")
        _ = try XCTUnwrap(speechSignal("SpeechStarted", id, timeout: 10), fixture.context)
        let paused = Date()
        XCTAssertTrue(try fixture.playerctl("pause").succeeded)
        XCTAssertTrue(try poll(timeout: 3) { try fixture.status() == "Paused" }, "pause during the announcement\(fixture.context)")
        XCTAssertEqual(try pausedBecause(), "user")

        // The announcement is not the book: it is spoken to its end.
        let finished = try XCTUnwrap(speechSignal("SpeechFinished", id, timeout: 20), fixture.context)
        XCTAssertEqual(finished.arguments.last, "done", "the pause must not cancel the announcement\(fixture.context)")
        XCTAssertNotNil(fixture.recording.firstSound(after: paused.addingTimeInterval(1.6)).flatMap { $0 < finished.receivedAt ? $0 : nil },
                        "the announcement's end was not heard\(fixture.context)")

        // Narration stays paused: silence, no words, status and reason unchanged.
        let quietFrom = finished.receivedAt.addingTimeInterval(0.3)
        XCTAssertTrue(fixture.recording.staysSilent(after: quietFrom, for: 2), "narration was heard after the announcement\(fixture.context)")
        XCTAssertTrue(narratorRanges(from: finished.receivedAt).isEmpty, "narration words after the announcement")
        XCTAssertEqual(try fixture.status(), "Paused")
        XCTAssertEqual(try pausedBecause(), "user")
        let statuses = fixture.playerChanges(since: before).compactMap { PlayerFixture.changed($0)["PlaybackStatus"] }
        XCTAssertEqual(statuses, ["'Paused'"], "PlaybackStatus changes")

        // Play goes on from the held word.
        let played = Date()
        XCTAssertTrue(try fixture.playerctl("play").succeeded)
        XCTAssertNotNil(fixture.sound(after: played, timeout: 5), "not heard after play\(fixture.context)")
        let resumed = try XCTUnwrap(fixture.watcher.wait(timeout: 5) { isNarratorRange($0) && $0.receivedAt >= played },
                                    fixture.context)
        XCTAssertTrue(heldWords(since: before).contains(Self.start(resumed) ?? -1),
                      "went on at \(resumed.raw), not the held word \(heldWords(since: before))\(fixture.context)")
        XCTAssertEqual(try pausedBecause(), "")
    }
}
