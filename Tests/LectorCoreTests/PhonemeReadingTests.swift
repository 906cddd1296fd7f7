import LectorCore
import XCTest

final class PhonemeReadingTests: XCTestCase {
    /// espeak-ng 1.51's own output for "He sat on the mat at 10 Downing St." (DESIGN-NOTES,
    /// "Neural voices"): function words joined, the number and "St." expanded.
    func testEventsAlignToThePhonemeString() {
        let phonemes = "hiː sˈæt ɔnðə mˈæt æt tˈɛn dˈaʊnɪŋ sənt"
        let events: [PhonemeReading.Event] = [
            (0, "h"), (0, "iː"), (3, "s"), (3, "æ"), (3, "t"), (7, "ɔ"), (7, "n"), (7, "ð"), (7, "ə"),
            (14, "m"), (14, "æ"), (14, "t"), (18, "æ"), (18, "t"), (21, "t"), (21, "ɛ"), (21, "n"),
            (24, "d"), (24, "aʊ"), (24, "n"), (24, "ɪ"), (24, "ŋ"), (32, "s"), (32, "ə"), (32, "n"), (32, "t"),
        ]
        let reading = PhonemeReading(phonemes: phonemes, events: events)
        XCTAssertEqual(reading.phonemes.count, phonemes.unicodeScalars.count)
        XCTAssertEqual(reading.wordStarts.map(\.offset), [0, 3, 7, 14, 18, 21, 24, 32])
        // "sˈæt": the space before it and its stress mark belong to "sat".
        let sat = reading.wordStarts[1].phoneme
        XCTAssertEqual(String(String.UnicodeScalarView(reading.phonemes[sat..<(sat + 5)])), " sˈæt")
        XCTAssertEqual(reading.offsets.last, 32)
    }

    func testAnEventThatIsNotThereIsPassedOverAndPausesAreIgnored() {
        let reading = PhonemeReading(phonemes: "ə bˈɔːl", events: [(0, "ə"), (0, "_:"), (2, "q"), (2, "b"), (2, "ɔː"), (2, "l")])
        XCTAssertEqual(reading.offsets, [0, 2, 2, 2, 2, 2, 2])
        XCTAssertEqual(reading.wordStarts.map(\.offset), [0, 2])
    }

    func testNoEventsLeaveEveryPhonemeAtTheStart() {
        let reading = PhonemeReading(phonemes: "hˈɛloʊ", events: [])
        XCTAssertEqual(Set(reading.offsets), [0])
    }

    func testPunctuationGoesAfterItsWordAndClausesCutThere() {
        // "Stop, then go." as espeak-ng 1.51 gives it: no comma, a space before each word.
        let reading = PhonemeReading(phonemes: "stˈɑːp ðˈɛn ɡˈoʊ", events: [(0, "s"), (0, "t"), (0, "ɑː"), (0, "p"),
                                                                         (6, "ð"), (6, "ɛ"), (6, "n"), (11, "ɡ"), (11, "oʊ")])
        let punctuated = reading.punctuated(by: "Stop, then go.")
        XCTAssertEqual(String(String.UnicodeScalarView(punctuated.phonemes)), "stˈɑːp, ðˈɛn ɡˈoʊ.")
        XCTAssertEqual(punctuated.wordStarts.map(\.offset), [0, 6, 11])
        XCTAssertEqual(punctuated.clauses(atLeast: 3).map { String(String.UnicodeScalarView($0.phonemes)) }, ["stˈɑːp,", " ðˈɛn ɡˈoʊ."])
    }

    /// A long clause is cut between words into near-equal runs, each within the maximum; a word
    /// longer than it stays whole; the offsets go with their phonemes.
    func testALongClauseIsCutBetweenWordsWithinTheMaximum() {
        let words = ["ðə", "lˈɔŋ", "ɡɹˈeɪ", "sˈiː", "ɹˈoʊld", "ˈɑn", "wɪðˈaʊt", "ɐn", "ˈɛnd"]
        let text = words.joined(separator: " ")
        var offsets: [Int] = [], at = 0
        for word in words {
            offsets += Array(repeating: at, count: word.unicodeScalars.count + 1)
            at += word.unicodeScalars.count + 1
        }
        let reading = PhonemeReading(phonemes: Array(text.unicodeScalars), offsets: Array(offsets.prefix(text.unicodeScalars.count)))
        let pieces = reading.clauses(atLeast: 3, atMost: 16)
        let texts = pieces.map { String(String.UnicodeScalarView($0.phonemes)) }
        XCTAssertEqual(texts.joined(), text, "nothing lost or doubled")
        XCTAssertEqual(pieces.count, 3, "\(texts)")
        for piece in texts {
            XCTAssertLessThanOrEqual(piece.unicodeScalars.count, 16, "\(texts)")
            XCTAssertTrue(piece.hasSuffix(" ") || piece == texts.last, "cut inside a word: \(texts)")
        }
        XCTAssertEqual(pieces.flatMap(\.offsets), reading.offsets)
        XCTAssertEqual(PhonemeReading(phonemes: Array("abcdefghijklmnopqrstuvwxyz".unicodeScalars), offsets: Array(repeating: 0, count: 26))
            .clauses(atLeast: 3, atMost: 10).count, 1, "a single long word stays whole")
    }
}
