import XCTest
import LectorBooks

/// An EPUB 2 book made at run time: OPF 2.0 with `opf:role`s, an NCX table of contents only
/// (nested navPoints, two of them pointing at the same file), the cover named by
/// `<meta name="cover">`, a `linear="no"` answers page, a short title page outside the table of
/// contents, and HTML named entities that XML does not declare.
final class GeneratedEPUB2Tests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    static let opf = """
    <?xml version="1.0" encoding="UTF-8"?>
    <package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="BookId">
      <metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
        <dc:title>The Lighthouse Keeper</dc:title>
        <dc:creator opf:role="aut" opf:file-as="Doe, Jane">Jane Doe</dc:creator>
        <dc:creator opf:role="ill">Ivan Illustrator</dc:creator>
        <dc:creator opf:role="aut">John Roe</dc:creator>
        <dc:language>en-GB</dc:language>
        <dc:identifier id="BookId" opf:scheme="ISBN">9780000000002</dc:identifier>
        <meta name="cover" content="cover-img"/>
      </metadata>
      <manifest>
        <item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
        <item id="cover-img" href="Images/cover.png" media-type="image/png"/>
        <item id="title" href="Text/title.xhtml" media-type="application/xhtml+xml"/>
        <item id="ch1" href="Text/chapter%201.xhtml" media-type="application/xhtml+xml"/>
        <item id="ch2" href="Text/ch2.xhtml" media-type="application/xhtml+xml"/>
        <item id="answers" href="Text/answers.xhtml" media-type="application/xhtml+xml"/>
      </manifest>
      <spine toc="ncx">
        <itemref idref="title"/>
        <itemref idref="ch1"/>
        <itemref idref="answers" linear="no"/>
        <itemref idref="ch2"/>
      </spine>
    </package>
    """

    static let ncx = """
    <?xml version="1.0" encoding="UTF-8"?>
    <ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">
      <head><meta name="dtb:uid" content="9780000000002"/></head>
      <docTitle><text>The Lighthouse Keeper</text></docTitle>
      <navMap>
        <navPoint id="p1" playOrder="1">
          <navLabel><text>Part One</text></navLabel>
          <content src="Text/chapter%201.xhtml"/>
          <navPoint id="c1" playOrder="2">
            <navLabel><text>Chapter One</text></navLabel>
            <content src="Text/chapter%201.xhtml"/>
          </navPoint>
          <navPoint id="c2" playOrder="3">
            <navLabel><text>Chapter Two</text></navLabel>
            <content src="Text/ch2.xhtml"/>
            <navPoint id="c2s" playOrder="4">
              <navLabel><text>The Storm</text></navLabel>
              <content src="Text/ch2.xhtml#storm"/>
            </navPoint>
          </navPoint>
        </navPoint>
      </navMap>
    </ncx>
    """

    func makeBook() throws -> URL { try Self.makeBook(in: directory) }

    static func makeBook(in directory: TemporaryDirectory) throws -> URL {
        try EPUBFixture.standard(opf: Self.opf)
            .adding("OEBPS/toc.ncx", Self.ncx)
            .adding("OEBPS/Images/cover.png", EPUBFixture.pngBytes)
            .adding("OEBPS/Text/title.xhtml", EPUBFixture.xhtml(body: "<h1>The Lighthouse Keeper</h1><p>Jane Doe</p>"))
            .adding("OEBPS/Text/chapter 1.xhtml", EPUBFixture.xhtml(body: """
                <h2>Chapter One</h2>
                <p>The lamp&nbsp;was lit at dusk&mdash;always at dusk&hellip; said Mr&#46; Pike.<sup><a href="#n1">1</a></sup></p>
                <script type="text/javascript">var hidden = "SCRIPT TEXT";</script>
                <p>Caf&eacute; &amp; bar &copy; 1901</p>
                """))
            .adding("OEBPS/Text/answers.xhtml", EPUBFixture.xhtml(body: "<p>SECRET ANSWERS</p>"))
            .adding("OEBPS/Text/ch2.xhtml", EPUBFixture.xhtml(body: """
                <h2>Chapter Two</h2><p>The sea was calm.</p>
                <h3 id="storm">The Storm</h3><p>Then the wind rose.</p>
                """))
            .write(in: directory.url, name: "lighthouse.epub")
    }

    func testMetadataFromOPF2() throws {
        let outline = try BookReader.open(try makeBook())
        XCTAssertEqual(outline.format, .epub2)
        XCTAssertEqual(outline.title, "The Lighthouse Keeper")
        XCTAssertEqual(outline.authors, ["Jane Doe", "John Roe"], "the illustrator is not an author")
        XCTAssertEqual(outline.language, "en-GB")
        XCTAssertEqual(outline.identity, "9780000000002")
        XCTAssertNil(outline.textEncoding)
    }

    func testCoverFromMetaNameCover() throws {
        let cover = try XCTUnwrap(BookReader.open(try makeBook()).loadCover())
        XCTAssertEqual(cover.data, EPUBFixture.pngBytes)
        XCTAssertEqual(cover.mediaType, "image/png")
    }

    /// "Part One" and "Chapter One" point at the same file: one chapter, both titles.
    func testChaptersFromTheNCXWithNestedPointsAndSharedTargetsMerged() throws {
        let outline = try BookReader.open(try makeBook())
        XCTAssertEqual(outline.chapters.map(\.title), ["Part One — Chapter One", "Chapter Two", "The Storm"])
        XCTAssertEqual(outline.chapters.map(\.depth), [0, 1, 2])
    }

    func testShortTitlePageIsReadAtTheStartOfChapterOne() throws {
        let chapter = try BookReader.open(try makeBook()).loadChapter(0)
        XCTAssertTrue(chapter.text.hasPrefix("The Lighthouse Keeper\n\nJane Doe\n\nChapter One\n\nThe lamp"),
                      chapter.text)
    }

    func testNamedEntitiesAreDecodedAndNotesScriptsAndStylesLeftOut() throws {
        let chapter = try BookReader.open(try makeBook()).loadChapter(0)
        XCTAssertTrue(chapter.text.contains("The lamp was lit at dusk—always at dusk… said Mr. Pike."), chapter.text)
        XCTAssertTrue(chapter.text.hasSuffix("Café & bar © 1901"))
        XCTAssertFalse(chapter.text.contains("Pike.1"), "the footnote marker")
        XCTAssertFalse(chapter.text.contains("SCRIPT TEXT"))
        XCTAssertFalse(chapter.text.contains("STYLE-TEXT"))
        XCTAssertFalse(chapter.text.contains("Untitled"), "the <title> is not read")
    }

    func testLinearNoDocumentIsSkipped() throws {
        let book = try Book.load(try makeBook())
        XCTAssertFalse(book.chapters.contains { $0.text.contains("SECRET") })
        XCTAssertEqual(book.chapters[1].text, "Chapter Two\n\nThe sea was calm.")
        XCTAssertEqual(book.chapters[2].text, "The Storm\n\nThen the wind rose.")
    }
}
