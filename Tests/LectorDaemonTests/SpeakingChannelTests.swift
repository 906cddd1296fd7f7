@testable import LectorDaemon
import LectorTestKit
import XCTest

/// The speaking channel the Announcer and the Narrator share, in-process: a playback clock in
/// memory whose time moves with a manual loop. Events must be announced when their frame is
/// heard, without asking the server where playback is for every one of them, and nothing may be
/// armed while nothing waits to be heard.
@MainActor
private final class ChannelHarness {
    let loop = ManualLoop()
    let clock: FakePlaybackClock
    let channel: SpeakingChannel<String>
    /// (event, loop time in ms since the harness began) as announced.
    var heard: [(String, Double)] = []
    let start: UInt64

    init() throws {
        clock = FakePlaybackClock(loop: loop)
        channel = try SpeakingChannel(loop: loop)
        start = loop.now
        channel.onHeard = { [unowned self] events in
            for event in events { self.heard.append((event, Double(self.loop.now - self.start) / 1000)) }
        }
        channel.clock = clock
    }

    /// Frame at `milliseconds` of audio.
    func frame(_ milliseconds: Int) -> Int64 { Int64(22050 * milliseconds / 1000) }
}

/// XCTest on Linux runs test methods on the main thread but cannot call @MainActor ones: each
/// test steps into the main actor here.
private func withChannel(_ body: @MainActor (ChannelHarness) throws -> Void) throws {
    try MainActor.assumeIsolated {
        let harness = try ChannelHarness()
        defer { harness.channel.close() }
        try body(harness)
    }
}

final class SpeakingChannelTests: XCTestCase {
    func testEventsAreAnnouncedWhenTheirFrameIsHeardInOrder() throws { try withChannel { h in
        h.clock.write(frames: h.frame(3000))
        h.clock.answerTimingQueries()
        for (word, at) in [("one", 500), ("two", 900), ("three", 1400)] { h.channel.add(word, at: h.frame(at)) }
        h.channel.reschedule()

        h.loop.advanceTime(by: 450_000)
        XCTAssertTrue(h.heard.isEmpty, "announced before it was heard: \(h.heard)")
        h.loop.advanceTime(by: 1_000_000)
        XCTAssertEqual(h.heard.map(\.0), ["one", "two", "three"])
        for ((_, at), expected) in zip(h.heard, [500.0, 900, 1400]) {
            XCTAssertEqual(at, expected, accuracy: 2, "heard at \(at) ms, due at \(expected) ms")
        }
        XCTAssertEqual(h.loop.armedTimers, 0, "nothing waits to be heard: nothing may be armed")
    } }

    /// A book's words, three a second for 20 s: the server is asked where playback is only when
    /// its last answer is older than `timingMaxAge`, not once per word.
    func testWordsDoNotEachAskTheServerWherePlaybackIs() throws { try withChannel { h in
        h.clock.write(frames: h.frame(21_000))
        h.clock.answerTimingQueries()
        for index in 0..<60 { h.channel.add("w\(index)", at: h.frame(300 + index * 333)) }
        h.channel.reschedule()
        var elapsed: UInt64 = 0
        while elapsed < 21_000_000 {
            h.loop.advanceTime(by: 100_000)
            elapsed += 100_000
            if h.clock.pendingTimingQueries > 0 { h.clock.answerTimingQueries() }
        }
        XCTAssertEqual(h.heard.count, 60)
        let most = Int(21_000_000 / SpeakingChannel<String>.timingMaxAge) + 1
        XCTAssertLessThanOrEqual(h.clock.timingQueries, most, "\(h.clock.timingQueries) timing queries for 60 words")
        let late = zip(h.heard, 0..<60).map { $0.0.1 - Double(300 + $0.1 * 333) }
        XCTAssertLessThanOrEqual(late.max() ?? 0, 101, "announced up to \(late.max() ?? 0) ms late (the test answers queries every 100 ms)")
        XCTAssertGreaterThanOrEqual(late.min() ?? 0, 0, "announced before it was heard")
    } }

    /// Without a recent answer (a start, a flush) the server is asked first, and the events wait
    /// for its answer.
    func testAStaleClockIsAskedBeforeAnythingIsAnnounced() throws { try withChannel { h in
        h.clock.write(frames: h.frame(2000))
        h.channel.add("first", at: h.frame(200))
        h.channel.reschedule()
        h.loop.advanceTime(by: 300_000)
        XCTAssertEqual(h.clock.pendingTimingQueries, 1, "the stale clock must be asked")
        XCTAssertTrue(h.heard.isEmpty, "announced from a stale clock")
        h.clock.answerTimingQueries()
        XCTAssertEqual(h.heard.map(\.0), ["first"])
    } }

    func testNothingIsArmedWhileTheOwnerDoesNotListen() throws { try withChannel { h in
        h.clock.write(frames: h.frame(2000))
        h.clock.answerTimingQueries()
        var listening = false
        h.channel.listens = { listening }
        h.channel.add("word", at: h.frame(100))
        h.channel.reschedule()
        XCTAssertEqual(h.loop.armedTimers, 0, "armed while paused")
        h.loop.advanceTime(by: 500_000)
        XCTAssertTrue(h.heard.isEmpty)
        listening = true
        h.channel.reschedule()
        h.loop.advanceTime(by: 2_000)
        XCTAssertEqual(h.heard.map(\.0), ["word"], "heard as soon as it listens again")
        h.channel.stopListening()
        XCTAssertEqual(h.loop.armedTimers, 0)
    } }

    func testACorkedClockHoldsItsEvents() throws { try withChannel { h in
        h.clock.write(frames: h.frame(2000))
        h.clock.answerTimingQueries()
        h.channel.add("early", at: h.frame(100))
        h.channel.add("late", at: h.frame(800))
        h.channel.reschedule()
        h.loop.advanceTime(by: 300_000)
        h.clock.cork()
        h.loop.advanceTime(by: 2_000_000)
        XCTAssertEqual(h.heard.map(\.0), ["early"], "the clock stood still")
        h.clock.uncork()
        h.channel.reschedule()
        h.loop.advanceTime(by: 600_000)
        XCTAssertEqual(h.heard.map(\.0), ["early", "late"])
        XCTAssertEqual(h.heard.last?.1 ?? 0, 2800, accuracy: 2, "0.3 s before the cork, 0.5 s after it")
    } }

    func testDiscardedAudioTakesItsEventsAlongAndANewClockStartsEmpty() throws { try withChannel { h in
        h.clock.write(frames: h.frame(3000))
        h.clock.answerTimingQueries()
        for (word, at) in [("kept", 200), ("cut", 1200), ("gone", 2000)] { h.channel.add(word, at: h.frame(at)) }
        h.channel.removeAll(fromFrame: h.frame(1000))
        h.channel.reschedule()
        h.loop.advanceTime(by: 3_000_000)
        XCTAssertEqual(h.heard.map(\.0), ["kept"])

        h.channel.add("old stream", at: h.frame(3500))
        let replacement = FakePlaybackClock(loop: h.loop)
        h.channel.clock = replacement
        XCTAssertTrue(h.channel.isEmpty, "frames of the old stream mean nothing on the new one")
        XCTAssertEqual(h.loop.armedTimers, 0)
    } }

    /// Teardown takes the word being heard without announcing it.
    func testHeardNowTakesWhatIsHeardWithoutAnnouncingIt() throws { try withChannel { h in
        h.clock.write(frames: h.frame(3000))
        h.clock.answerTimingQueries()
        h.channel.add("a", at: h.frame(100))
        h.channel.add("b", at: h.frame(2000))
        h.loop.advanceTime(by: 500_000)   // not rescheduled: the timer never ran
        XCTAssertEqual(h.channel.heardNow(), ["a"])
        XCTAssertTrue(h.heard.isEmpty)
        XCTAssertEqual(h.channel.nextFrame, h.frame(2000))
    } }
}
