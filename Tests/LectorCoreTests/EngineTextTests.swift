import LectorCore
import XCTest

/// The engine text keeps every scalar where it was (word events are chapter offsets) and gives
/// line breaks after words without punctuation a clause pause, and segments cut mid-sentence a
/// rising end (see `EngineText` for what espeak-ng does with each).
final class EngineTextTests: XCTestCase {
    func render(_ text: String, endsPhrase: Bool = true) -> String {
        EngineText.render(Array(text.unicodeScalars)[...], endsPhrase: endsPhrase)
    }

    func testALineBreakAfterWordsBecomesAClausePause() {
        XCTAssertEqual(render("month, breeding\nLilacs out\nof the dead land, mixing\nMemory.\n\n"),
                       "month, breeding；Lilacs out；of the dead land, mixing；Memory.\n\n")
    }

    func testLineBreaksAfterPunctuationAndParagraphBreaksStay() {
        XCTAssertEqual(render("burning bright,\nIn the forests;\nWhat eye?\n“Yes.”\nNo\n\nNew"),
                       "burning bright,\nIn the forests;\nWhat eye?\n“Yes.”\nNo\n\nNew")
    }

    func testEveryScalarKeepsItsOffset() {
        let text = "Name\nAge\nAda\n36 years\n\nNext"
        XCTAssertEqual(render(text).unicodeScalars.count, text.unicodeScalars.count)
        for (original, rendered) in zip(text.unicodeScalars, render(text).unicodeScalars) where original != "\n" {
            XCTAssertEqual(original, rendered)
        }
    }

    func testASegmentCutMidSentenceEndsRising() {
        XCTAssertEqual(render("He said ", endsPhrase: false), "He said，")
        XCTAssertEqual(render("carpe diem", endsPhrase: false), "carpe diem，")
        XCTAssertEqual(render("he wrote:", endsPhrase: false), "he wrote:", "punctuation is pause enough")
        XCTAssertEqual(render("He said ", endsPhrase: true), "He said ")
        XCTAssertEqual(render("", endsPhrase: false), "")
    }

    func testClausePunctuation() {
        XCTAssertTrue(ClausePunctuation.endsClause("rain.”  ".unicodeScalars))
        XCTAssertTrue(ClausePunctuation.endsClause("你好，".unicodeScalars))
        XCTAssertFalse(ClausePunctuation.endsClause("breeding".unicodeScalars))
        XCTAssertFalse(ClausePunctuation.endsClause("".unicodeScalars))
    }
}
