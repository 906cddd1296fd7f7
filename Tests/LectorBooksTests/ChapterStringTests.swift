@testable import LectorBooks
import XCTest

/// A chapter's text is made from its scalars in one allocation of its UTF-8 size: every width of
/// scalar comes out as it went in.
final class ChapterStringTests: XCTestCase {
    func testScalarsOfEveryWidthBecomeTheSameString() {
        for text in ["", "plain", "Café — “quoted” ’s", "𝔘 and 😀 and \u{0}", String(repeating: "ab€𝔘\n", count: 10_000)] {
            let scalars = Array(text.unicodeScalars)
            let made = ChapterTextAssembler.string(of: scalars)
            XCTAssertEqual(made, text)
            XCTAssertEqual(made.utf8.count, text.utf8.count)
        }
    }
}
