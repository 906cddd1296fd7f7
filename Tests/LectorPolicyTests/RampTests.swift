import LectorPolicy
import XCTest

final class RampTests: XCTestCase {
    func testRampDownEndsExactlyAtTheTarget() {
        let from = ChannelVolumes([65536, 65536])
        let ramp = from.ramp(to: from.scaled(by: 0.3), steps: 3)
        XCTAssertEqual(ramp, [ChannelVolumes([50244, 50244]), ChannelVolumes([34953, 34953]), ChannelVolumes([19661, 19661])])
    }

    func testRampKeepsTheBalance() {
        let from = ChannelVolumes([65536, 32768])
        let ramp = from.ramp(to: from.scaled(by: 0.5), steps: 2)
        XCTAssertEqual(ramp, [ChannelVolumes([49152, 24576]), ChannelVolumes([32768, 16384])])
    }

    func testEveryStepIsBelowThePreviousOne() {
        let from = ChannelVolumes([45875, 45875])
        let ramp = from.ramp(to: from.scaled(by: 0.3), steps: 8)
        XCTAssertEqual(ramp.count, 8)
        XCTAssertEqual(ramp.last, from.scaled(by: 0.3))
        var previous = from
        for step in ramp {
            XCTAssertLessThan(step.loudest, previous.loudest)
            previous = step
        }
    }

    func testRampUpEndsExactlyAtTheOriginal() {
        let ramp = ChannelVolumes([19661, 19661]).ramp(to: ChannelVolumes([65536, 65536]), steps: 4)
        XCTAssertEqual(ramp.count, 4)
        XCTAssertEqual(ramp.last, ChannelVolumes([65536, 65536]))
    }

    func testDegenerateRamps() {
        let from = ChannelVolumes([100, 100])
        XCTAssertEqual(from.ramp(to: from, steps: 5), [])
        XCTAssertEqual(from.ramp(to: ChannelVolumes([30, 30]), steps: 0), [ChannelVolumes([30, 30])])
        XCTAssertEqual(from.ramp(to: ChannelVolumes([30, 30]), steps: 1), [ChannelVolumes([30, 30])])
        XCTAssertEqual(from.ramp(to: ChannelVolumes([30]), steps: 5), [ChannelVolumes([30])], "channel count changed")
        // Tiny volumes: repeated values are left out.
        let tiny = ChannelVolumes([3, 3]).ramp(to: ChannelVolumes([1, 1]), steps: 10)
        XCTAssertEqual(tiny.last, ChannelVolumes([1, 1]))
        XCTAssertEqual(tiny.count, Set(tiny).count)
    }

    func testCloseness() {
        XCTAssertTrue(ChannelVolumes([19661, 19661]).isClose(to: ChannelVolumes([19660, 19663]), tolerance: 2))
        XCTAssertFalse(ChannelVolumes([19661, 19661]).isClose(to: ChannelVolumes([19660, 19664]), tolerance: 2))
        XCTAssertFalse(ChannelVolumes([19661]).isClose(to: ChannelVolumes([19661, 19661]), tolerance: 2))
    }
}
