import LectorCore
import XCTest

final class TimelineTests: XCTestCase {
    func testWordBoundariesBecomeZeroBasedScalarOffsets() {
        // espeak-ng: "Héllo wörld" second word at text_position 7, length 5, 341 ms.
        let word = WordBoundary(textPosition: 7, length: 5, audioPositionMilliseconds: 341,
                                sampleRate: 22050, textScalarCount: 11)
        XCTAssertEqual(word, WordBoundary(start: 6, length: 5, sample: 7519))
        XCTAssertNil(WordBoundary(textPosition: 0, length: 1, audioPositionMilliseconds: 0, sampleRate: 22050, textScalarCount: 3))
        XCTAssertNil(WordBoundary(textPosition: 4, length: 1, audioPositionMilliseconds: 0, sampleRate: 22050, textScalarCount: 3))
        XCTAssertEqual(WordBoundary(textPosition: 3, length: 9, audioPositionMilliseconds: 0, sampleRate: 22050,
                                    textScalarCount: 4)?.length, 2, "clamped to the text")
    }

    func testLeadingSilenceKeepsAShortLeadIn() {
        let samples: [Int16] = Array(repeating: 3, count: 300) + [2000, -1500] + Array(repeating: 0, count: 10)
        XCTAssertEqual(samples.withUnsafeBufferPointer { LeadingSilence.droppable($0) }, 300 - LeadingSilence.keep)
        let silent = [Int16](repeating: -10, count: 100)
        XCTAssertEqual(silent.withUnsafeBufferPointer { LeadingSilence.droppable($0) }, 100)
        let loudAtOnce: [Int16] = [900, 0, 0]
        XCTAssertEqual(loudAtOnce.withUnsafeBufferPointer { LeadingSilence.droppable($0) }, 0)
    }

    func testScheduleReleasesEventsOnlyOnceHeard() {
        var schedule = HearingSchedule<String>()
        schedule.add("start", at: 100)
        schedule.add("word 1", at: 100)
        schedule.add("word 2", at: 5_000)
        schedule.add("end", at: 9_000)
        XCTAssertEqual(schedule.due(heard: 99), [])
        XCTAssertEqual(schedule.due(heard: 100), ["start", "word 1"])
        XCTAssertEqual(schedule.nextFrame, 5_000)
        XCTAssertEqual(schedule.due(heard: 10_000), ["word 2", "end"])
        XCTAssertTrue(schedule.isEmpty)
        XCTAssertNil(schedule.nextFrame)
    }

    func testScheduleKeepsFrameOrderAndDropsCancelled() {
        var schedule = HearingSchedule<(id: Int, name: String)>()
        schedule.add((1, "late"), at: 300)
        schedule.add((2, "early"), at: 100)
        schedule.add((1, "middle"), at: 200)
        schedule.removeAll { $0.id == 2 }
        XCTAssertEqual(schedule.due(heard: 1_000).map(\.name), ["middle", "late"])
    }

    func testScheduleStaysCorrectOverManyEvents() {
        var schedule = HearingSchedule<Int>()
        var released: [Int] = []
        for i in 0..<1_000 {
            schedule.add(i, at: Int64(i * 10))
            if i % 7 == 0 { released += schedule.due(heard: Int64(i * 10 - 25)) }
        }
        released += schedule.due(heard: .max)
        XCTAssertEqual(released, Array(0..<1_000))
    }
}

final class LeadingSilenceTrimmerTests: XCTestCase {
    func testTrimsAcrossChunksThenKeepsEverything() {
        var trimmer = LeadingSilenceTrimmer()
        XCTAssertEqual(trimmer.trim([Int16](repeating: 0, count: 100)).count, 0)
        let second: [Int16] = Array(repeating: 0, count: 200) + [3000] + Array(repeating: 0, count: 50)
        XCTAssertEqual(trimmer.trim(second).count, LeadingSilence.keep + 1 + 50)
        XCTAssertEqual(trimmer.dropped, 100 + 200 - LeadingSilence.keep)
        XCTAssertEqual(trimmer.trim([0, 0, 0]).count, 3, "silence after the first sound stays")
        var off = LeadingSilenceTrimmer(enabled: false)
        XCTAssertEqual(off.trim([0, 0]).count, 2)
        XCTAssertEqual(off.dropped, 0)
    }
}
