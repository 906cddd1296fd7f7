import XCTest
import LectorBooks

/// Tables of contents as real books get them wrong or make them odd: entries opening at the same
/// spot, anchors that do not exist, anchors listed out of document order, undeclared namespace
/// prefixes. Chapters must never overlap, lose text, or go silent.
final class TableOfContentsEdgeCaseTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        try RealFixtures.require(RealFixtures.wasteland)
        try RealFixtures.require(RealFixtures.childrensLiterature)
        directory = try TemporaryDirectory()
    }
    override func tearDown() { directory?.remove() }

    func makeBook(nav: [(title: String, href: String)], documents: [(name: String, body: String)]) throws -> URL {
        let items = nav.map { "<li><a href=\"\($0.href)\">\($0.title)</a></li>" }.joined()
        let opf = EPUBFixture.opf3(
            documents: documents.map { ($0.name, $0.name + ".xhtml") },
            extraManifest: #"<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>"#)
        var fixture = EPUBFixture.standard(opf: opf)
            .adding("OEBPS/nav.xhtml", EPUBFixture.xhtml(body: "<nav epub:type=\"toc\"><ol>\(items)</ol></nav>"))
        for document in documents {
            fixture = fixture.adding("OEBPS/\(document.name).xhtml", EPUBFixture.xhtml(body: document.body))
        }
        return try fixture.write(in: directory.url, name: "book.epub")
    }

    func testEntriesAtTheSameSpotAndMissingAnchors() throws {
        let url = try makeBook(nav: [
            ("Part One", "a.xhtml#part1"), ("Chapter 1", "a.xhtml#ch1"), ("Chapter 2", "a.xhtml#ch2"),
            ("Ghost", "a.xhtml#missing"), ("Epilogue", "b.xhtml#nowhere"),
        ], documents: [
            ("a", """
                <section id="part1"><section id="ch1"><h2>Chapter 1</h2><p>Alpha.</p></section>
                <section id="ch2"><h2>Chapter 2</h2><p>Beta.</p></section></section>
                """),
            ("b", "<p>The end.</p>"),
        ])
        let book = try Book.load(url)
        XCTAssertEqual(book.chapters.map(\.title), ["Part One — Chapter 1", "Chapter 2", "Ghost — Epilogue"],
                       "entries with no text of their own are no tracks: their titles go with the next chapter")
        XCTAssertEqual(book.chapters.map(\.text), ["Chapter 1\n\nAlpha.", "Chapter 2\n\nBeta.", "The end."])
        XCTAssertEqual(book.chapters.map(\.sourceMap.isEmpty), [false, false, false])
    }

    func testAnchorsListedOutOfDocumentOrderDoNotOverlap() throws {
        let url = try makeBook(nav: [("Second", "a.xhtml#y"), ("First", "a.xhtml#x"), ("Next", "b.xhtml")], documents: [
            ("a", #"<p id="x">First part.</p><p id="y">Second part.</p>"#),
            ("b", "<p>Next document.</p>"),
        ])
        let book = try Book.load(url)
        XCTAssertEqual(book.chapters.map(\.title), ["Second", "First", "Next"])
        XCTAssertEqual(book.chapters.map(\.text), ["Second part.", "First part.", "Next document."])
    }

    func testDocumentsBetweenEntriesBelongToThePreviousChapter() throws {
        let url = try makeBook(nav: [("One", "a.xhtml"), ("Three", "c.xhtml#t")], documents: [
            ("a", "<p>In a.</p>"), ("b", "<p>In b.</p>"), ("c", #"<p>Still b's chapter.</p><h2 id="t">Three</h2><p>In c.</p>"#),
        ])
        let book = try Book.load(url)
        XCTAssertEqual(book.chapters.map(\.text), ["In a.\n\nIn b.\n\nStill b's chapter.", "Three\n\nIn c."])
    }

    func testUndeclaredEpubPrefixIsTolerated() throws {
        let content = """
            <?xml version="1.0" encoding="UTF-8"?>
            <html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title></head>
            <body><p>Read this.<a epub:type="noteref" href="#n">1</a></p></body></html>
            """
        let url = try EPUBFixture.standard(opf: EPUBFixture.opf3(documents: [("c1", "c1.xhtml")]))
            .adding("OEBPS/c1.xhtml", content).write(in: directory.url, name: "prefix.epub")
        XCTAssertEqual(try Book.load(url).chapters.map(\.text), ["Read this."])
    }

    /// The daemon loads the chapter to play on one thread and the rest on another.
    func testChaptersLoadTheSameFromManyThreads() throws {
        let outline = try BookReader.open(ChildrensLiteratureTests.url)
        let serial = try Book.load(ChildrensLiteratureTests.url).chapters
        let results = ResultsBox(count: outline.chapters.count)
        DispatchQueue.concurrentPerform(iterations: outline.chapters.count * 2) { iteration in
            let index = iteration % outline.chapters.count   // every chapter twice, loaded concurrently
            results.set(index, Result { try outline.loadChapter(index) })
        }
        for (index, result) in results.all.enumerated() {
            XCTAssertEqual(try XCTUnwrap(result).get(), serial[index])
        }
    }
}
