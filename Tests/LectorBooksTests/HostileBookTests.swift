import XCTest
import LectorBooks

/// Books made to cost time or memory (issue 11): deep nesting, megabyte-long metadata and
/// labels, a huge spine. Each must open with the right words or be refused with a named
/// `BookError`. Their big entries are stored, not deflated: deflated, they would be refused as
/// ZIP bombs before any parsing (see `BookLimits`). Elapsed time is printed, not asserted (machines differ); the figures are in
/// docs/fuzzing.md.
final class HostileBookTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    static let depth = 300_000

    func timed<T>(_ name: String, _ work: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        defer { print("hostile book \(name): \(ContinuousClock.now - start)") }
        return try work()
    }

    func oneChapterBook(_ content: String, name: String) throws -> URL {
        try EPUBFixture.standard(opf: EPUBFixture.opf3(documents: [("c1", "c1.xhtml")]))
            .adding("OEBPS/c1.xhtml", content, compressed: false)
            .write(in: directory.url, name: name)
    }

    func bookWithNav(_ navBody: String, name: String) throws -> URL {
        let opf = EPUBFixture.opf3(
            documents: [("c1", "c1.xhtml")],
            extraManifest: #"<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>"#)
        return try EPUBFixture.standard(opf: opf)
            .adding("OEBPS/nav.xhtml", EPUBFixture.xhtml(body: navBody), compressed: false)
            .adding("OEBPS/c1.xhtml", EPUBFixture.xhtml(body: "<h1 id=\"a\">Start</h1><p>The only chapter.</p>"))
            .write(in: directory.url, name: name)
    }

    /// Well-formed XHTML, 300,000 `<div>`s deep: deeper than any parser here nests, so the
    /// elements past the cap are flattened and every word is still read.
    func testDeeplyNestedWellFormedChapterIsRead() throws {
        let body = "<p>Before the deep.</p>" + String(repeating: "<div>", count: Self.depth)
            + "<p>Deep inside.</p>" + String(repeating: "</div>", count: Self.depth) + "<p>After the deep.</p>"
        let url = try oneChapterBook(EPUBFixture.xhtml(body: body), name: "deep-xhtml.epub")
        let chapter = try timed("300,000 nested <div> (well-formed)") { try BookReader.open(url).loadChapter(0) }
        // Read flat: blocks end lines, not paragraphs.
        XCTAssertEqual(chapter.text, "Before the deep.\nDeep inside.\nAfter the deep.")
        XCTAssertEqual(chapter.warnings.count, 1)
        XCTAssertTrue(chapter.warnings[0].contains("more than 256 deep"), chapter.warnings[0])
    }

    /// Tag soup: 300,000 `<div><span>` pairs never closed, words among them.
    func testDeeplyNestedUnclosedChapterIsRead() throws {
        let body = "<p>Before the deep.</p>" + String(repeating: "<div><span>", count: Self.depth / 2)
            + "Deep inside. " + String(repeating: "<span>word ", count: 1000)
        let url = try oneChapterBook(EPUBFixture.xhtml(body: body), name: "deep-soup.epub")
        let chapter = try timed("300,000 unclosed <div>/<span>") { try BookReader.open(url).loadChapter(0) }
        XCTAssertTrue(chapter.text.hasPrefix("Before the deep.\nDeep inside. word word"), String(chapter.text.prefix(80)))
        XCTAssertEqual(chapter.text.split(separator: " ").filter { $0.hasPrefix("word") }.count, 1000)
        XCTAssertEqual(chapter.warnings.count, 1)
    }

    /// Unclosed elements, then as many end tags of elements that are not open: each one sends a
    /// parser looking through the whole stack of open elements unless the stack is bounded.
    func testDeepStackWithStrayEndTagsIsRead() throws {
        let body = "<p>Before the deep.</p>" + String(repeating: "<div><span>", count: Self.depth / 2)
            + "Deep inside." + String(repeating: "</b>", count: Self.depth / 2) + "The end."
        let url = try oneChapterBook(EPUBFixture.xhtml(body: body), name: "deep-stray.epub")
        let chapter = try timed("150,000 unclosed <div><span> + 150,000 stray </b>") {
            try BookReader.open(url).loadChapter(0)
        }
        XCTAssertEqual(chapter.text, "Before the deep.\nDeep inside.The end.")
    }

    static let longText = "Long " + String(repeating: "word ", count: 400_000) + "end"   // 2 MB

    func testTwoMegabyteTitleAndCreatorAreCut() throws {
        let opf = EPUBFixture.opf3(title: Self.longText, documents: [("c1", "c1.xhtml")],
                                   extraMetadata: "<dc:creator>\(Self.longText)</dc:creator>")
        let url = try EPUBFixture(entries: EPUBFixture.standard(opf: "").entries.dropLast())
            .adding("OEBPS/content.opf", opf, compressed: false)
            .adding("OEBPS/c1.xhtml", EPUBFixture.xhtml(body: "<p>Hello.</p>"))
            .write(in: directory.url, name: "long-title.epub")
        let outline = try timed("2 MB title and 2 MB creator") { try BookReader.open(url) }
        XCTAssertTrue(outline.title.hasPrefix("Long word word"))
        XCTAssertTrue(outline.title.hasSuffix("…"), String(outline.title.suffix(20)))
        XCTAssertLessThanOrEqual(outline.title.count, 1001)
        XCTAssertEqual(outline.authors.count, 1)
        XCTAssertTrue(outline.authors[0].hasPrefix("Long word word"))
        XCTAssertLessThanOrEqual(outline.authors[0].count, 1001)
        XCTAssertEqual(try outline.loadChapter(0).text, "Hello.")
    }

    func testTwoMegabyteNavLabelIsCut() throws {
        let url = try bookWithNav("<nav epub:type=\"toc\"><ol><li><a href=\"c1.xhtml\">\(Self.longText)</a></li></ol></nav>",
                                  name: "long-label.epub")
        let outline = try timed("2 MB nav label") { try BookReader.open(url) }
        XCTAssertEqual(outline.chapters.count, 1)
        XCTAssertTrue(outline.chapters[0].title.hasPrefix("Long word word"))
        XCTAssertLessThanOrEqual(outline.chapters[0].title.count, 1001)
        XCTAssertEqual(try outline.loadChapter(0).text, "Start\n\nThe only chapter.")
    }

    /// 50,000 lists nested in list items: deeper than the documents that describe a book may
    /// nest, so it is refused, naming the navigation document.
    func testDeeplyNestedNavListsAreRefusedByName() throws {
        let levels = 50_000
        let nav = "<nav epub:type=\"toc\">" + String(repeating: "<ol><li><a href=\"c1.xhtml#a\">Entry</a>", count: levels)
            + String(repeating: "</li></ol>", count: levels) + "</nav>"
        let url = try bookWithNav(nav, name: "deep-nav.epub")
        XCTAssertThrowsError(try timed("50,000 nested nav lists") { try BookReader.open(url) }) { error in
            guard case .brokenXML(_, let path, _, let reason) = error as? BookError else {
                return XCTFail("expected brokenXML, got \(error)")
            }
            XCTAssertEqual(path, "OEBPS/nav.xhtml")
            XCTAssertTrue(reason.contains("nested"), reason)
        }
    }

    /// A spine of 20,000 small documents and no table of contents: a chapter each.
    func testSpineOfTwentyThousandDocumentsOpens() throws {
        let count = 20_000
        var fixture = EPUBFixture.standard(opf: EPUBFixture.opf3(
            documents: (0..<count).map { ("d\($0)", "d\($0).xhtml") }))
        for index in 0..<count {
            fixture.entries.append(.init(path: "OEBPS/d\(index).xhtml",
                data: Data("<html><body><h1>Part \(index + 1)</h1><p>Text.</p></body></html>".utf8), compressed: true))
        }
        let url = try fixture.write(in: directory.url, name: "wide-spine.epub")
        let outline = try timed("spine of 20,000 documents") { try BookReader.open(url) }
        XCTAssertEqual(outline.chapters.count, count)
        XCTAssertEqual(outline.chapters.last?.title, "Part \(count)")
        XCTAssertEqual(try outline.loadChapter(count - 1).text, "Part \(count)\n\nText.")
    }

    /// Found by scripts/fuzz-books: a byte that is not UTF-8 in an element name crashed
    /// FoundationXML's XMLParser (the whole daemon), which XMLSAXParser replaces. Such a document
    /// is not well-formed and is read as HTML.
    func testANameThatIsNotUTF8IsReadLeniently() throws {
        var content = Data("<html><head><title>T</title></head><body><p".utf8)
        content.append(0xCB)
        content.append(contentsOf: Array(">Black <b>coffee</b>.</p></body></html>".utf8))
        let url = try EPUBFixture.standard(opf: EPUBFixture.opf3(documents: [("c1", "c1.xhtml")]))
            .adding("OEBPS/c1.xhtml", content)
            .write(in: directory.url, name: "not-utf8.epub")
        let chapter = try BookReader.open(url).loadChapter(0)
        // Not UTF-8, so Windows-1252: "<p\u{CB}>" is no known tag and reads as text.
        XCTAssertEqual(chapter.text, "<p\u{CB}>Black coffee.")
        XCTAssertTrue(chapter.warnings[0].contains("at line 1 (invalid character)"), chapter.warnings[0])
    }

    /// 100,000 attributes on one element (1 MB): libxml2 compares each with every one before it.
    /// A content document keeps the element and its text without them; a package document with
    /// such an element is refused.
    func testAnElementWithAHundredThousandAttributes() throws {
        let attributes = (0..<100_000).map { "a\($0)=\"1\"" }.joined(separator: " ")
        let url = try oneChapterBook(EPUBFixture.xhtml(body: "<p>Before.</p><p \(attributes)>Crowded.</p>"),
                                     name: "attributes.epub")
        let chapter = try timed("100,000 attributes on one element") { try BookReader.open(url).loadChapter(0) }
        XCTAssertEqual(chapter.text, "Before.\n\nCrowded.")
        XCTAssertTrue(chapter.warnings[0].contains("more than 256 attributes"), chapter.warnings[0])

        let opf = EPUBFixture.opf3(documents: [("c1", "c1.xhtml")], extraMetadata: "<meta \(attributes)/>")
        let refused = try EPUBFixture(entries: EPUBFixture.standard(opf: "").entries.dropLast())
            .adding("OEBPS/content.opf", opf, compressed: false)
            .adding("OEBPS/c1.xhtml", EPUBFixture.xhtml(body: "<p>Hello.</p>"))
            .write(in: directory.url, name: "crowded-opf.epub")
        XCTAssertThrowsError(try timed("100,000 attributes in the OPF") { try BookReader.open(refused) }) { error in
            guard case .brokenXML(_, let path, _, let reason) = error as? BookError else {
                return XCTFail("expected brokenXML, got \(error)")
            }
            XCTAssertEqual(path, "OEBPS/content.opf")
            XCTAssertEqual(reason, "an element has more than 256 attributes")
        }
    }

    /// A book that escaped its brackets twice, 250,000 times: each "&lt;" used to look 2048
    /// characters ahead for its "&gt;" (42 s in a release build).
    func testRunsOfDoublyEscapedBracketsReadInOnePass() throws {
        let url = try oneChapterBook(EPUBFixture.xhtml(body: "<p>" + String(repeating: "&amp;lt;", count: 250_000) + "</p>"),
                                     name: "escaped.epub")
        let chapter = try timed("2 MB of &amp;lt;") { try BookReader.open(url).loadChapter(0) }
        XCTAssertEqual(chapter.text.count, 1_000_000)
        XCTAssertTrue(chapter.text.hasPrefix("&lt;&lt;"))
    }

    /// Entities are substituted, so an external one would put a file of the listener's into the
    /// book's text (and `GetChapterText`). Internal entities read; external ones are never loaded.
    func testExternalEntitiesAreNeverRead() throws {
        let secret = try directory.file("secret.txt", "SECRET-FILE-CONTENT")
        let content = """
            <?xml version="1.0"?>
            <!DOCTYPE html [<!ENTITY inner "internal text"><!ENTITY x SYSTEM "\(secret.absoluteString)">
            <!ENTITY % p SYSTEM "\(secret.absoluteString)">]>
            <html xmlns="http://www.w3.org/1999/xhtml"><body><p>&inner; and &x; end.</p></body></html>
            """
        let chapter = try BookReader.open(try oneChapterBook(content, name: "xxe.epub")).loadChapter(0)
        XCTAssertFalse(chapter.text.contains("SECRET"), chapter.text)
        XCTAssertTrue(chapter.text.hasSuffix("and end."), chapter.text)

        let internalOnly = content.replacingOccurrences(of: "&x; ", with: "")
        let clean = try BookReader.open(try oneChapterBook(internalOnly, name: "entities.epub")).loadChapter(0)
        XCTAssertEqual(clean.text, "internal text and end.")
        XCTAssertEqual(clean.warnings, [])
    }

    /// 10,000 chapters in one document: each chapter's end was found by looking at every other
    /// chapter start, so reading them all was quadratic (30 s for 20,000 in a release build).
    func testTenThousandChaptersInOneDocumentAllLoad() throws {
        let count = 10_000
        let nav = "<nav epub:type=\"toc\"><ol>"
            + (0..<count).map { "<li><a href=\"c1.xhtml#a\($0)\">Entry \($0)</a></li>" }.joined() + "</ol></nav>"
        let opf = EPUBFixture.opf3(
            documents: [("c1", "c1.xhtml")],
            extraManifest: #"<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>"#)
        let url = try EPUBFixture.standard(opf: opf)
            .adding("OEBPS/nav.xhtml", EPUBFixture.xhtml(body: nav))
            .adding("OEBPS/c1.xhtml", EPUBFixture.xhtml(body: (0..<count).map { "<p id=\"a\($0)\">Part \($0).</p>" }.joined()))
            .write(in: directory.url, name: "many-chapters.epub")
        let book = try timed("10,000 chapters in one document, all loaded") { try Book.load(url) }
        XCTAssertEqual(book.chapters.count, count)
        XCTAssertEqual(book.chapters.last?.text, "Part \(count - 1).")
        XCTAssertEqual(book.chapters.last?.title, "Entry \(count - 1)")
    }
}
