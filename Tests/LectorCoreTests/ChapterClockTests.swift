import LectorCore
import XCTest

final class ChapterClockTests: XCTestCase {
    func testEstimatesMapOffsetsAndTimesBothWays() {
        let clock = ChapterClock(scalarCount: 15_000, scalarsPerSecond: 15)
        XCTAssertEqual(clock.length, 1_000_000_000)
        XCTAssertEqual(clock.time(ofOffset: 150), 10_000_000)
        XCTAssertEqual(clock.offset(atTime: 10_000_000), 150)
        XCTAssertEqual(clock.offset(atTime: -5), 0)
        XCTAssertEqual(clock.offset(atTime: .max / 2), 15_000)
    }

    func testPositionFollowsHeardAudioTimesRate() {
        var clock = ChapterClock(scalarCount: 15_000, scalarsPerSecond: 15)
        clock.startRun(atOffset: 300)
        XCTAssertEqual(clock.position(audioSeconds: 0, rate: 1), 20_000_000)
        XCTAssertEqual(clock.position(audioSeconds: 2, rate: 1.5), 23_000_000)
        clock.startRun(atOffset: 450, time: 31_000_000)
        XCTAssertEqual(clock.position(audioSeconds: 1, rate: 1), 32_000_000, "a seamless run keeps its time")
        XCTAssertEqual(clock.position(audioSeconds: 1e9, rate: 1), clock.length, "never past the end")
    }

    func testLearningMovesTheEstimateTowardsWhatWasHeard() {
        var clock = ChapterClock(scalarCount: 10_000, scalarsPerSecond: 15)
        clock.learn(scalars: 10, audioSeconds: 5, rate: 1)
        XCTAssertEqual(clock.scalarsPerSecond, 15, "too short to learn from")
        clock.learn(scalars: 2_000, audioSeconds: 100, rate: 1)   // 20 per second
        XCTAssertEqual(clock.scalarsPerSecond, 19, accuracy: 0.001)
        clock.learn(scalars: 2_000, audioSeconds: 50, rate: 2)    // also 20 at rate 1
        XCTAssertGreaterThan(clock.scalarsPerSecond, 19.5)
        clock.learn(scalars: 2_000, audioSeconds: 1, rate: 1)     // nonsense: ignored
        XCTAssertLessThan(clock.scalarsPerSecond, 20.01)
    }

    func testScheduleDropsEventsFromAFrameOn() {
        var schedule = HearingSchedule<String>()
        schedule.add("a", at: 10)
        schedule.add("b", at: 20)
        schedule.add("c", at: 30)
        _ = schedule.due(heard: 10)
        schedule.removeAll(fromFrame: 20)
        XCTAssertTrue(schedule.isEmpty)
        schedule.add("d", at: 25)
        XCTAssertEqual(schedule.due(heard: 100), ["d"])
    }
}
