import LectorCore
import XCTest

/// The compact scalar store gives back exactly the text's scalars, in the narrowest width that
/// holds them all.
final class ScalarStoreTests: XCTestCase {
    func testEachWidthGivesBackTheTextsScalars() {
        let texts: [(String, Int)] = [
            ("", 1),
            ("Plain ASCII.\n\nTwo paragraphs.", 1),
            ("Café, naïve, ÿ", 1),                              // Latin-1: up to U+00FF
            ("Don’t — “yes”, Ā and \u{FFFD}", 2),              // the Basic Multilingual Plane
            ("The river 𝔘 runs 😀 past the mill", 4),           // astral scalars
            ("\u{0}\u{FF}\u{100}", 2),
        ]
        for (text, width) in texts {
            let store = ScalarStore(text)
            XCTAssertEqual(store.width, width, text)
            XCTAssertEqual(Array(store), Array(text.unicodeScalars), text)
            XCTAssertEqual(store.count, text.unicodeScalars.count, text)
            // From scalars in hand (a parsed document's text): the same store.
            XCTAssertEqual(ScalarStore(scalars: Array(text.unicodeScalars)), store, text)
        }
    }

    /// Built by appending (a document while it is parsed), a store widens when a wider scalar
    /// comes and ends as the same store made whole.
    func testAppendingWidensOnlyWhenAWiderScalarComes() {
        for text in ["", "Plain.", "Café ÿ then ’ then 𝔘", "𝔘 first, then plain", "a’", "\u{FF}\u{100}\u{10000}"] {
            var store = ScalarStore()
            store.reserveCapacity(4)
            for scalar in text.unicodeScalars { store.append(scalar) }
            XCTAssertEqual(store, ScalarStore(text), text)
            XCTAssertEqual(Array(store), Array(text.unicodeScalars), text)
        }
        var latin = ScalarStore()
        latin.append(contentsOf: "Café".unicodeScalars)
        XCTAssertEqual(latin.width, 1, "Latin-1 stays a byte a scalar")
        latin.append("’")
        XCTAssertEqual(latin.width, 2)
        XCTAssertEqual(String(String.UnicodeScalarView(latin)), "Café’")
    }

    func testSlicesAndSearchesWorkByScalarOffset() {
        let text = "One “two” three. 𝔘 four"
        let store = ScalarStore(text)
        let scalars = Array(text.unicodeScalars)
        XCTAssertEqual(Array(store.slice(4..<9)), Array(scalars[4..<9]))
        XCTAssertEqual(store[17], "𝔘")
        XCTAssertEqual(store.lastIndex(where: { $0 == " " }), scalars.lastIndex(of: " "))
    }

    /// The segmenter reads through the store: its segments are the same whatever the width.
    func testTheSegmenterCutsTheSameAtEveryWidth() {
        let plain = "First sentence here. Second one follows. Third."
        let wide = "First sentence “here”. Second one follows. Third 𝔘."
        for text in [plain, wide] {
            let segmenter = TextSegmenter(text)
            var start = 0, pieces: [String] = []
            while start < segmenter.count {
                let range = segmenter.segment(from: start)
                pieces.append(String(String.UnicodeScalarView(segmenter.scalars[range])))
                start = range.upperBound
            }
            XCTAssertEqual(pieces.count, 3, text)
            XCTAssertEqual(pieces.joined(), text)
        }
    }
}
