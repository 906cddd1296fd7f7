import LectorCore
import XCTest

final class LanguageRunsTests: XCTestCase {
    let runs = LanguageRuns([
        LanguageRun(range: 30..<40, language: "de"),
        LanguageRun(range: 9..<19, language: "la"),
        LanguageRun(range: 35..<45, language: "fr"),   // overlaps: starts where "de" ends
        LanguageRun(range: 50..<50, language: "it"),   // empty: dropped
    ])

    func testRunsAreSortedWithoutOverlapsOrEmptyRuns() {
        XCTAssertEqual(runs.runs, [LanguageRun(range: 9..<19, language: "la"), LanguageRun(range: 30..<40, language: "de"),
                                   LanguageRun(range: 40..<45, language: "fr")])
    }

    func testLanguageAtAnOffset() {
        XCTAssertNil(runs.language(at: 0))
        XCTAssertEqual(runs.language(at: 9), "la")
        XCTAssertEqual(runs.language(at: 18), "la")
        XCTAssertNil(runs.language(at: 19))
        XCTAssertEqual(runs.language(at: 40), "fr")
        XCTAssertNil(runs.language(at: 1000))
    }

    func testNextChange() {
        XCTAssertEqual(runs.nextChange(after: 0), 9)
        XCTAssertEqual(runs.nextChange(after: 9), 19)
        XCTAssertEqual(runs.nextChange(after: 19), 30)
        XCTAssertEqual(runs.nextChange(after: 39), 40)
        XCTAssertEqual(runs.nextChange(after: 44), 45)
        XCTAssertNil(runs.nextChange(after: 45))
        XCTAssertNil(LanguageRuns().nextChange(after: 0))
    }
}
