import LectorBooks
import LectorTestKit
import XCTest

/// A book's structure as real books get it wrong or right: table-of-contents links that name
/// files not where they are, a table of contents that leaves most of the book in one chapter,
/// the book's own contents page, part title pages. Each repair is said in the outline's warnings.
final class StructureTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory?.remove() }

    /// An EPUB 2 book whose documents live in `OEBPS/Text/` and whose NCX (in `OEBPS/`) links them
    /// with `ncxHrefs`, chapter by chapter.
    func book(ncxHrefs: [String], documents: [(name: String, body: String)], extraSpine: String = "",
              guide: String = "") throws -> BookOutline {
        let items = documents.map { #"<item id="\#($0.name)" href="Text/\#($0.name)" media-type="application/xhtml+xml"/>"# }
            .joined(separator: "\n")
        let spine = documents.map { #"<itemref idref="\#($0.name)"/>"# }.joined(separator: "\n")
        let points = ncxHrefs.enumerated().map { index, href in
            #"<navPoint id="p\#(index)" playOrder="\#(index + 1)"><navLabel><text>Entry \#(index + 1)</text></navLabel><content src="\#(href)"/></navPoint>"#
        }.joined(separator: "\n")
        var writer = EPUBWriter.standard(opf: """
            <?xml version="1.0" encoding="UTF-8"?>
            <package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="id">
              <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
                <dc:identifier id="id">urn:test:structure</dc:identifier><dc:title>Structure</dc:title><dc:language>en</dc:language>
              </metadata>
              <manifest><item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>\(items)</manifest>
              <spine toc="ncx">\(spine)\(extraSpine)</spine>\(guide)
            </package>
            """)
            .adding("OEBPS/toc.ncx", """
                <?xml version="1.0" encoding="UTF-8"?>
                <ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><navMap>\(points)</navMap></ncx>
                """)
        for document in documents {
            writer = writer.adding("OEBPS/Text/" + document.name, EPUBFixture.xhtml(body: document.body))
        }
        let url = directory.url.appendingPathComponent("structure.epub")
        try writer.write(to: url)
        return try BookReader.open(url)
    }

    func chapters(_ count: Int, words: Int = 30) -> [(name: String, body: String)] {
        (1...count).map { ("chapter\($0).xhtml", "<h2>Chapter \($0)</h2><p>" + String(repeating: "Words go here. ", count: words) + "</p>") }
    }

    /// The manual's case: the NCX names `chapter1.html` while the file is `Text/chapter1.xhtml`
    /// (or `chapter2.xhtml`, the folder dropped): found by file name, with or without its extension.
    func testLinksThatDropTheFolderOrChangeTheExtensionAreFoundByFileName() throws {
        let outline = try book(ncxHrefs: ["chapter1.html", "chapter2.xhtml", "Text/chapter3.xhtml#top", "gone.xhtml"],
                               documents: chapters(3))
        XCTAssertEqual(outline.chapters.map(\.title), ["Entry 1", "Entry 2", "Entry 3"])
        XCTAssertTrue(try outline.loadChapter(1).text.hasPrefix("Chapter 2\n\nWords go here."))
        XCTAssertEqual(outline.warnings, [
            #"table of contents: 1 link names a file that is not there (e.g. "chapter1.html"); found by file name without its extension (e.g. OEBPS/Text/chapter1.xhtml)"#,
            #"table of contents: 1 link names a file that is not there (e.g. "chapter2.xhtml"); found by file name (e.g. OEBPS/Text/chapter2.xhtml)"#,
            #"table of contents: 1 entry points at nothing in the book (e.g. "gone.xhtml"); left out"#,
        ])
    }

    /// Links written relative to the package document instead of the NCX's own folder.
    func testLinksRelativeToThePackageDocument() throws {
        let archive = try book(ncxHrefs: ["Text/chapter1.xhtml", "Text/chapter2.xhtml"], documents: chapters(2))
        XCTAssertEqual(archive.chapters.count, 2)
        XCTAssertEqual(archive.warnings, [], "these resolve as written: the NCX is in OEBPS/")
    }

    /// A table of contents listing only the first chapters would read the rest as one chapter
    /// with no way to skip: one chapter per document instead, titled by the entries it has and
    /// the documents' first headings.
    func testATableOfContentsThatLeavesMostOfTheBookInOneChapterIsReplaced() throws {
        let outline = try book(ncxHrefs: ["Text/chapter1.xhtml", "Text/chapter2.xhtml"], documents: chapters(8))
        XCTAssertEqual(outline.chapters.map(\.title),
                       ["Entry 1", "Entry 2", "Chapter 3", "Chapter 4", "Chapter 5", "Chapter 6", "Chapter 7", "Chapter 8"])
        XCTAssertEqual(outline.warnings,
                       ["the table of contents leaves 7 of the 8 documents in one chapter; read as one chapter per document instead"])
    }

    /// The book's own contents page (links to every chapter) is not read as chapter 1, whatever
    /// the table of contents says; a title page before it still is.
    func testTheBooksOwnContentsPageIsNotAChapter() throws {
        var documents = chapters(3)
        documents.insert(("toc.xhtml", """
            <h1>Contents</h1><p><a href="chapter1.xhtml">Chapter 1: The start</a></p>
            <p><a href="chapter2.xhtml">Chapter 2: The middle</a></p><p><a href="chapter3.xhtml">Chapter 3: The end</a></p>
            """), at: 0)
        documents.insert(("title.xhtml", "<h1>Structure</h1><p>A novel in three chapters by Nobody, first published long ago.</p>"), at: 0)
        let outline = try book(ncxHrefs: ["Text/title.xhtml", "Text/toc.xhtml", "Text/chapter1.xhtml", "Text/chapter2.xhtml",
                                          "Text/chapter3.xhtml"], documents: documents)
        XCTAssertEqual(outline.chapters.map(\.title), ["Entry 1", "Entry 3", "Entry 4", "Entry 5"])
        XCTAssertFalse(try outline.loadBook().chapters.contains { $0.text.contains("The middle") })
        XCTAssertEqual(outline.warnings,
                       ["OEBPS/Text/toc.xhtml is the book's own table of contents (mostly links into the book); not read as a chapter"])
    }

    /// Part title pages (a heading alone in a small document) are read at the start of the part's
    /// first chapter, whose track carries both titles.
    func testPartTitlePagesMergeIntoTheFirstChapterOfTheirPart() throws {
        var documents = chapters(4)
        documents.insert(("part1.xhtml", #"<div class="part"><h1>Part One</h1><h2>The Way Out</h2></div>"#), at: 0)
        documents.insert(("part2.xhtml", #"<h1>Part Two</h1><img src="ornament.png" alt=""/>"#), at: 3)
        let outline = try book(ncxHrefs: ["Text/part1.xhtml", "Text/chapter1.xhtml", "Text/chapter2.xhtml", "Text/part2.xhtml",
                                          "Text/chapter3.xhtml", "Text/chapter4.xhtml"], documents: documents)
        XCTAssertEqual(outline.chapters.map(\.title), ["Entry 1 — Entry 2", "Entry 3", "Entry 4 — Entry 5", "Entry 6"])
        XCTAssertTrue(try outline.loadChapter(0).text.hasPrefix("Part One\n\nThe Way Out\n\nChapter 1\n\nWords go here."))
        XCTAssertTrue(try outline.loadChapter(2).text.hasPrefix("Part Two\n\nChapter 3"))
        XCTAssertEqual(outline.warnings, [#"2 chapters holding only a title (e.g. "Entry 1") read at the start of the next one"#])
    }

    /// Debian's live-manual: an EPUB 2 whose spine starts with its own contents page and three
    /// part title pages before chapter 1.
    func testLiveManualStartsWithItsFirstChapterAndItsPartTitles() throws {
        let outline = try BookReader.open(try LiveManualTests.english())
        XCTAssertEqual(outline.chapters.first?.title, "Live Systems Manual — About — About this manual — 1. About this manual")
        XCTAssertFalse(outline.chapters.contains { $0.title == "Table of Contents" })
        XCTAssertTrue(try outline.loadChapter(0).text.hasPrefix("Live Systems Manual\n\nAbout\n\nAbout this manual\n\n1. About this manual"))
        XCTAssertTrue(outline.warnings.contains(
            "OEBPS/index.xhtml is the book's own table of contents (mostly links into the book); not read as a chapter"))
    }
}
