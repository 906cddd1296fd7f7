import LectorCore
import XCTest

final class TextSegmenterTests: XCTestCase {
    func testSegmentsEndAtSentencesAndCoverTheText() {
        let text = "It was late. \"Who's there?\" she asked!  Nobody answered\n\nA new paragraph"
        let segmenter = TextSegmenter(text)
        var pieces: [String] = []
        var start = 0
        while start < segmenter.count {
            let range = segmenter.segment(from: start)
            XCTAssertGreaterThan(range.count, 0)
            pieces.append(segmenter.text(range))
            start = range.upperBound
        }
        XCTAssertEqual(pieces, ["It was late. ", "\"Who's there?\" ", "she asked!  ", "Nobody answered\n\n", "A new paragraph"])
        XCTAssertEqual(pieces.joined(), text)
    }

    func testDecimalPointsAndAbbreviationsWithoutSpaceDoNotEndASentence() {
        let segmenter = TextSegmenter("Pay 35.20 now. Done")
        XCTAssertEqual(segmenter.text(segmenter.segment(from: 0)), "Pay 35.20 now. ")
    }

    private func pieces(_ text: String) -> [String] {
        let segmenter = TextSegmenter(text)
        var pieces: [String] = []
        var start = 0
        while start < segmenter.count {
            let range = segmenter.segment(from: start)
            pieces.append(segmenter.text(range))
            start = range.upperBound
        }
        return pieces
    }

    func testAbbreviationsAndInitialsDoNotEndASentence() {
        XCTAssertEqual(pieces("Mr. Smith met Dr. Jones. They talked."), ["Mr. Smith met Dr. Jones. ", "They talked."])
        XCTAssertEqual(pieces("J. R. R. Tolkien wrote it. Then"), ["J. R. R. Tolkien wrote it. ", "Then"])
        XCTAssertEqual(pieces("It lies S.E. of the town, e.g. near (St. Paul's). Yes"),
                       ["It lies S.E. of the town, e.g. near (St. Paul's). ", "Yes"])
        XCTAssertEqual(pieces("See No. 5 on p. 12 at 5 p.m. on Sunday. Done"),
                       ["See No. 5 on p. 12 at 5 p.m. on Sunday. ", "Done"])
        XCTAssertEqual(pieces("Hr. Müller kam z.B. später. Gut"), ["Hr. Müller kam z.B. später. ", "Gut"])
    }

    func testWordsLikeAbbreviationsStillEndSentencesWhereTheyEnd() {
        // "No" before a capital, a title at a paragraph's end, an initialism before a capital,
        // a sentence's last word in quotes.
        XCTAssertEqual(pieces("He said No. Then he left."), ["He said No. ", "Then he left."])
        XCTAssertEqual(pieces("Call the Dr.\n\nThe next"), ["Call the Dr.\n\n", "The next"])
        XCTAssertEqual(pieces("She moved to the U.S. The end."), ["She moved to the U.S. ", "The end."])
        XCTAssertEqual(pieces("\"Go.\" he said. \"Now.\" She"), ["\"Go.\" ", "he said. ", "\"Now.\" ", "She"])
        let segmenter = TextSegmenter("Mr. Smith")
        XCTAssertFalse(segmenter.isPhraseEnd(0..<4), "a piece cut after an abbreviation ends no phrase")
    }

    func testSentencesJoinALongSentencesCutsAndLeaveOutTheSpacesBetween() {
        XCTAssertEqual(TextSegmenter("Mr. Smith came. He sat.\n\nEnd").sentences(), [0..<15, 16..<23, 25..<28])
        let long = "a " + String(repeating: "word ", count: 20) + "end. Next one."
        XCTAssertEqual(TextSegmenter(long, maximumLength: 32).sentences(), [0..<(long.count - 10), (long.count - 9)..<long.count])
        XCTAssertEqual(TextSegmenter("").sentences(), [])
    }

    func testLongSentencesAreCutAtASpace() {
        let text = String(repeating: "word ", count: 50)
        let segmenter = TextSegmenter(text, maximumLength: 32)
        let first = segmenter.segment(from: 0)
        XCTAssertLessThanOrEqual(first.count, 32)
        XCTAssertEqual(segmenter.text(first).last, " ")
        let unbroken = TextSegmenter(String(repeating: "x", count: 100), maximumLength: 32)
        XCTAssertEqual(unbroken.segment(from: 0), 0..<32)
    }

    func testLongRunsOfLinesAreCutAtALineBreak() {
        let text = (1...20).map { "line number \($0)" }.joined(separator: "\n")
        let segmenter = TextSegmenter(text, maximumLength: 64)
        let first = segmenter.segment(from: 0)
        XCTAssertLessThanOrEqual(first.count, 64)
        XCTAssertEqual(segmenter.text(first).last, "\n", "cut after a whole line, not mid-line")
        XCTAssertFalse(segmenter.isPhraseEnd(first), "no sentence ends there")
    }

    func testPhraseEnds() {
        let segmenter = TextSegmenter("One. Two three\n\nFour five, six")
        XCTAssertTrue(segmenter.isPhraseEnd(0..<5), "a sentence end")
        XCTAssertFalse(segmenter.isPhraseEnd(5..<9), "mid-sentence")
        XCTAssertTrue(segmenter.isPhraseEnd(5..<16), "a paragraph break")
        XCTAssertFalse(segmenter.isPhraseEnd(16..<26), "a comma")
        XCTAssertTrue(segmenter.isPhraseEnd(16..<30), "the end of the text")
    }

    func testChineseSentences() {
        let segmenter = TextSegmenter("你好世界。今天天气很好！")
        XCTAssertEqual(segmenter.text(segmenter.segment(from: 0)), "你好世界。")
        XCTAssertEqual(segmenter.text(segmenter.segment(from: 5)), "今天天气很好！")
    }

    func testWordStarts() {
        let segmenter = TextSegmenter("The quick  brown fox")
        XCTAssertEqual(segmenter.wordStart(atOrBefore: 0), 0)
        XCTAssertEqual(segmenter.wordStart(atOrBefore: 6), 4)
        XCTAssertEqual(segmenter.wordStart(atOrBefore: 9), 11, "on a space: the next word")
        XCTAssertEqual(segmenter.wordStart(atOrBefore: 19), 17)
        XCTAssertEqual(segmenter.wordStart(atOrBefore: 99), 20)
        XCTAssertEqual(TextSegmenter("你好世界").wordStart(atOrBefore: 2), 2)
    }
}

final class SentenceStartTests: XCTestCase {
    func testTheStartOfThePieceHoldingAnOffset() {
        let segmenter = TextSegmenter("One. Two three. Four")
        XCTAssertEqual(segmenter.sentenceStart(containing: 0), 0)
        XCTAssertEqual(segmenter.sentenceStart(containing: 4), 0, "the space after a sentence belongs to it")
        XCTAssertEqual(segmenter.sentenceStart(containing: 5), 5)
        XCTAssertEqual(segmenter.sentenceStart(containing: 9), 5)
        XCTAssertEqual(segmenter.sentenceStart(containing: 17), 16)
        XCTAssertEqual(segmenter.sentenceStart(containing: 99), 16, "past the end: the last sentence")
        XCTAssertEqual(TextSegmenter("").sentenceStart(containing: 3), 0)
        let paragraphs = TextSegmenter("A heading\n\nThe text goes on")
        XCTAssertEqual(paragraphs.sentenceStart(containing: 14), 11, "a paragraph break starts a piece")
    }
}
