import XCTest
import LectorBooks

/// The read-along markup of books made to cost time or memory: it stays well-formed, shallow
/// and bounded (no attribute value longer than a field, no nesting deeper than the parsers'
/// cap), and a chapter's markup costs about what its text costs. Times are printed, not asserted.
final class HostileMarkupTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    func oneChapterBook(_ body: String, name: String) throws -> BookOutline {
        let url = try EPUBFixture.standard(opf: EPUBFixture.opf3(documents: [("c1", "c1.xhtml")],
                                                                 extraManifest: #"<item id="fig" href="fig.png" media-type="image/png"/>"#))
            .adding("OEBPS/c1.xhtml", EPUBFixture.xhtml(body: body), compressed: false)
            .adding("OEBPS/fig.png", EPUBFixture.pngBytes)
            .write(in: directory.url, name: name)
        return try BookReader.open(url)
    }

    func checkedMarkup(_ outline: BookOutline, _ name: String,
                       file: StaticString = #filePath, line: UInt = #line) throws -> ChapterMarkup {
        let start = ContinuousClock.now
        let markup = try outline.chapterMarkup(at: 0)
        print("hostile markup \(name): \(ContinuousClock.now - start), \(markup.html.utf8.count) bytes")
        XCTAssertEqual(try ReadAlongMarkupCheck.problems(markup, text: try outline.loadChapter(0).text), [],
                       file: file, line: line)
        XCTAssertLessThanOrEqual(Self.maximumNesting(markup.html), 256, file: file, line: line)
        return markup
    }

    /// How deep the fragment's elements nest (it is our own output: every `<` is a tag).
    static func maximumNesting(_ html: String) -> Int {
        var depth = 0, deepest = 0
        var index = html.utf8.startIndex
        let bytes = html.utf8
        while let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
            let next = bytes.index(after: open)
            guard let close = bytes[next...].firstIndex(of: UInt8(ascii: ">")) else { break }
            if bytes[next] == UInt8(ascii: "/") {
                depth -= 1
            } else if bytes[bytes.index(before: close)] != UInt8(ascii: "/") {
                depth += 1
                deepest = max(deepest, depth)
            }
            index = close
        }
        return deepest
    }

    func testThreeHundredThousandNestedDivsStayShallow() throws {
        let depth = 300_000
        let body = "<p>Before the deep.</p>" + String(repeating: "<div><em>", count: depth / 2)
            + "<p>Deep inside.</p>" + String(repeating: "</em></div>", count: depth / 2) + "<p>After the deep.</p>"
        let markup = try checkedMarkup(try oneChapterBook(body, name: "deep.epub"), "300,000 nested elements")
        XCTAssertTrue(markup.html.contains("Deep inside."))
    }

    func testUnclosedTagSoupIsClosed() throws {
        let body = "<p>Before.</p>" + String(repeating: "<div><span><b>", count: 20_000) + "Inside. "
            + String(repeating: "<i>word ", count: 1000)
        let markup = try checkedMarkup(try oneChapterBook(body, name: "soup.epub"), "60,000 unclosed elements")
        XCTAssertTrue(markup.html.contains("Inside."), String(markup.html.prefix(200)))
        XCTAssertEqual(try ReadAlongMarkupCheck.spans(markup).map(\.text).joined(separator: " ")
                        .split(separator: " ").filter { $0 == "word" }.count, 1000)
    }

    func testMegabyteAttributeValuesAreDroppedOrCut() throws {
        let huge = String(repeating: "a", count: 1 << 20)
        let body = """
            <p xml:lang="\(huge)" dir="\(huge)">Language.</p>
            <table><tr><td colspan="\(String(repeating: "9", count: 100_000))" rowspan="99999">Cell.</td></tr></table>
            <p><img src="fig.png" alt="\(huge)"/>Image.</p>
            """
        let markup = try checkedMarkup(try oneChapterBook(body, name: "attributes.epub"), "1 MB attribute values")
        XCTAssertLessThan(markup.html.utf8.count, 4000, "nothing of a megabyte gets through")
        XCTAssertFalse(markup.html.contains("lang=") || markup.html.contains("dir=") || markup.html.contains("span="))
        let alt = try XCTUnwrap(markup.html.range(of: #"alt="a+…""#, options: .regularExpression))
        XCTAssertLessThanOrEqual(markup.html[alt].count, 1000 + #"alt="""#.count)
        XCTAssertEqual(markup.resources, ["fig"])
    }

    /// Ten thousand chapters in one document: each chapter's markup opens its ancestors by
    /// following parents, not by replaying every event before it.
    func testTenThousandChaptersInOneDocumentAllHaveMarkup() throws {
        let count = 10_000
        let nav = "<nav epub:type=\"toc\"><ol>"
            + (0..<count).map { "<li><a href=\"c1.xhtml#a\($0)\">Entry \($0)</a></li>" }.joined() + "</ol></nav>"
        let opf = EPUBFixture.opf3(
            documents: [("c1", "c1.xhtml")],
            extraManifest: #"<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>"#)
        let body = "<section>" + (0..<count).map { "<p id=\"a\($0)\">Part <em>\($0)</em>.</p>" }.joined() + "</section>"
        let url = try EPUBFixture.standard(opf: opf)
            .adding("OEBPS/nav.xhtml", EPUBFixture.xhtml(body: nav))
            .adding("OEBPS/c1.xhtml", EPUBFixture.xhtml(body: body))
            .write(in: directory.url, name: "many-chapters.epub")
        let outline = try BookReader.open(url)
        let start = ContinuousClock.now
        var last: ChapterMarkup?
        for index in outline.chapters.indices { last = try outline.chapterMarkup(at: index) }
        print("hostile markup 10,000 chapters in one document, every chapter's markup: \(ContinuousClock.now - start)")
        XCTAssertEqual(last?.html, #"<section><p><span data-o="0">Part</span><em> <span data-o="5">9999</span></em>"#
                       + #"<span data-o="9">.</span></p></section>"#)
    }
}
