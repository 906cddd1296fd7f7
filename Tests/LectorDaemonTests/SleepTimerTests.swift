import Foundation
@testable import LectorDaemon
import LectorCore
import LectorTestKit
import XCTest

/// The sleep timer's timing on a loop whose time moves only when the test says: when the fade
/// begins, how it falls, when narration pauses, what a listener's action does, and that nothing
/// is armed while paused or off.
final class SleepTimerTests: XCTestCase {
    /// Narration as the timer sees it, and what the timer told (its `on…` events).
    @MainActor
    final class Host: SleepTimerNarration {
        var narrationPlaying = true
        var isPlaying: Bool { narrationPlaying }
        var chapterTimeLeft: UInt64 = 600_000_000
        var fades: [Double?] = []
        var expired = 0
        var changes = 0
    }

    /// The timer, its loop and a stand-in for the daemon, on the main actor as in the daemon.
    @MainActor
    final class Harness {
        let loop = ManualLoop()
        let host = Host()
        let timer: SleepTimer
        init() throws {
            timer = try SleepTimer(loop: loop, narration: host)
            timer.onFade = { [host] in host.fades.append($0) }
            timer.onExpired = { [host] in host.expired += 1; host.narrationPlaying = false }   // the pause
            timer.onChanged = { [host] in host.changes += 1 }
        }
        func seconds(_ s: Double) { loop.advanceTime(by: UInt64(s * 1_000_000)) }
    }

    /// XCTest on Linux cannot call @MainActor test methods; it runs them on the main thread.
    private func run(_ body: @MainActor (Harness, ManualLoop, Host, SleepTimer) throws -> Void) throws {
        try MainActor.assumeIsolated {
            let harness = try Harness()
            try body(harness, harness.loop, harness.host, harness.timer)
        }
    }

    func testADurationFadesItsLast20SecondsThenPausesOnce() throws {
        try run { harness, loop, host, timer in
            @MainActor func seconds(_ s: Double) { harness.seconds(s) }
            timer.set(.duration(seconds: 60))
            XCTAssertEqual(loop.armedTimers, 1, "one one-shot timer")
            seconds(39.9)
            XCTAssertEqual(host.fades.count, 0, "no fade before the last 20 s")
            XCTAssertEqual(timer.remaining ?? 0, 20_100_000, accuracy: 1)
            seconds(0.2)
            XCTAssertTrue(timer.isFading)
            XCTAssertEqual(host.fades.last??.rounded(toPlaces: 2), 1.0, "starts at full loudness")
            seconds(10)
            XCTAssertEqual(host.fades.compactMap { $0 }.last ?? -1, 0.5, accuracy: 0.02, "half way through the fade")
            let fractions = host.fades.compactMap { $0 }
            XCTAssertEqual(fractions, fractions.sorted(by: >), "only ever falling")
            seconds(10)
            XCTAssertEqual(host.expired, 1, "paused when the time is up")
            XCTAssertNil(timer.mode)
            XCTAssertEqual(host.fades.last, .some(nil), "the listener's volume back after the pause")
            seconds(120)
            XCTAssertEqual(host.expired, 1)
            XCTAssertEqual(loop.armedTimers, 0, "nothing armed once it is over")
        }
    }

    func testItCountsOnlyWhilePlayingAndArmsNothingWhilePaused() throws {
        try run { harness, loop, host, timer in
            @MainActor func seconds(_ s: Double) { harness.seconds(s) }
            timer.set(.duration(seconds: 60))
            seconds(10)
            host.narrationPlaying = false
            timer.playbackChanged(playing: false)
            XCTAssertEqual(loop.armedTimers, 0, "paused: no timer")
            seconds(3600)
            XCTAssertEqual(timer.remaining, 50_000_000, "held while paused")
            host.narrationPlaying = true
            timer.playbackChanged(playing: true)
            seconds(49.9)
            XCTAssertEqual(host.expired, 0)
            seconds(0.2)
            XCTAssertEqual(host.expired, 1)
        }
    }

    func testAnActionWhileFadingCancelsTheFadeNotTheTimerAndANewSetReplacesIt() throws {
        try run { harness, loop, host, timer in
            @MainActor func seconds(_ s: Double) { harness.seconds(s) }
            timer.set(.duration(seconds: 30))
            seconds(15)
            XCTAssertTrue(timer.isFading)
            timer.listenerActed()
            XCTAssertFalse(timer.isFading)
            XCTAssertEqual(host.fades.last, .some(nil), "full volume at once")
            let count = host.fades.count
            seconds(14.9)
            XCTAssertEqual(host.fades.count, count, "no fade again")
            XCTAssertEqual(host.expired, 0)
            seconds(0.2)
            XCTAssertEqual(host.expired, 1, "still paused on time")

            host.narrationPlaying = true
            timer.set(.duration(seconds: 30))
            seconds(25)
            XCTAssertTrue(timer.isFading)
            timer.set(.duration(seconds: 600))
            XCTAssertFalse(timer.isFading, "replaced: its fade ends")
            XCTAssertEqual(host.fades.last, .some(nil))
            seconds(100)
            XCTAssertEqual(host.expired, 1)
            timer.set(.off)
            XCTAssertNil(timer.mode)
            XCTAssertEqual(loop.armedTimers, 0)
        }
    }

    func testAShortTimerFadesFromTheStart() throws {
        try run { harness, loop, host, timer in
            @MainActor func seconds(_ s: Double) { harness.seconds(s) }
            timer.set(.duration(seconds: 8))
            loop.run()
            XCTAssertTrue(timer.isFading)
            XCTAssertEqual(host.fades.first??.rounded(toPlaces: 2), 1.0)
            seconds(4)
            XCTAssertEqual(host.fades.compactMap { $0 }.last ?? -1, 0.5, accuracy: 0.05)
            seconds(4.1)
            XCTAssertEqual(host.expired, 1)
        }
    }

    func testEndOfChapterFadesOnTheEstimateHoldsAFloorAndPausesAtTheRealEnd() throws {
        try run { harness, loop, host, timer in
            @MainActor func seconds(_ s: Double) { harness.seconds(s) }
            host.chapterTimeLeft = 100_000_000
            timer.set(.endOfChapter)
            XCTAssertEqual(timer.remaining, 100_000_000)
            seconds(70)
            // The estimate moved: the chapter is longer than thought.
            host.chapterTimeLeft = 40_000_000
            seconds(10)
            XCTAssertFalse(timer.isFading, "looked again: 40 s left is not the last 20 s")
            host.chapterTimeLeft = 19_000_000
            seconds(30)
            XCTAssertTrue(timer.isFading)
            host.chapterTimeLeft = 0
            seconds(1)
            XCTAssertEqual(host.fades.compactMap { $0 }.last ?? -1, SleepTimer.chapterFadeFloor, accuracy: 1e-9, "held at the floor")
            XCTAssertEqual(loop.armedTimers, 0, "waiting for the chapter's end wakes nothing")
            XCTAssertEqual(host.expired, 0, "the estimate is not the end")
            timer.chapterEnded()
            XCTAssertEqual(host.expired, 1)
            XCTAssertNil(timer.mode)
        }
    }
}

private extension Double {
    func rounded(toPlaces places: Int) -> Double {
        let factor = pow(10, Double(places))
        return (self * factor).rounded() / factor
    }
}
