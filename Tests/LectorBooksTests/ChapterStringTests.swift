@testable import LectorBooks
import LectorCore
import XCTest

/// A chapter's text is made from its scalars in one allocation of its UTF-8 size: every width of
/// scalar comes out as it went in.
final class ChapterStringTests: XCTestCase {
    func testScalarsOfEveryWidthBecomeTheSameString() {
        for text in ["", "plain", "Café — “quoted” ’s", "𝔘 and 😀 and \u{0}", String(repeating: "ab€𝔘\n", count: 10_000)] {
            let made = ChapterTextAssembler.string(of: ScalarStore(text))
            XCTAssertEqual(made, text)
            XCTAssertEqual(made.utf8.count, text.utf8.count)
        }
    }

    /// A parsed document keeps its text at the narrowest width that holds it (a plain text's one
    /// chapter can be the whole file), and gives back the same text and offsets at every width.
    func testADocumentsTextIsKeptAtItsNarrowestWidth() throws {
        let cases: [(String, Int)] = [("Plain words, nothing more.", 1), ("Café, naïve.", 1),
                                      ("Don’t — “yes”.", 2), ("The river 𝔘 runs.", 4)]
        for (words, width) in cases {
            let xhtml = """
                <?xml version="1.0" encoding="utf-8"?>
                <html xmlns="http://www.w3.org/1999/xhtml"><head><title>T</title></head>
                <body><h1 id="h">Heading</h1><p id="p">\(words)</p></body></html>
                """
            let document = try XHTMLTextExtractor.extractStrictly(Data(xhtml.utf8), path: "c.xhtml",
                                                                  file: URL(fileURLWithPath: "/b.epub"), options: .init())
            XCTAssertEqual(document.scalars.width, width, words)
            let start = try XCTUnwrap(document.anchors["p"])
            XCTAssertEqual(document.string(in: start..<document.count), words)
        }
    }
}
