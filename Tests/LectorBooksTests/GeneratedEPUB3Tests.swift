import XCTest
import LectorBooks

/// EPUB 3 books made at run time: one with neither a navigation document nor an NCX (a chapter
/// per spine document, a guide cover page, headings without closing punctuation), and one whose
/// nav exercises note references, footnotes, page breaks and a `Notes` chapter.
final class GeneratedEPUB3Tests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    func makeBookWithoutTableOfContents() throws -> URL {
        let opf = EPUBFixture.opf3(
            identifier: nil, title: "No Map",
            documents: [("cover", "cover.xhtml"), ("a", "a.xhtml"), ("b", "b.xhtml"), ("c", "c.xhtml")],
            extraManifest: #"<item id="img" href="images/front.jpg" media-type="image/jpeg"/>"#,
            guide: #"<guide><reference type="cover" title="Cover" href="cover.xhtml"/></guide>"#)
        return try EPUBFixture.standard(opf: opf)
            .adding("OEBPS/cover.xhtml", EPUBFixture.xhtml(body: #"<div><img src="images/front.jpg" alt="Cover"/></div>"#))
            .adding("OEBPS/images/front.jpg", EPUBFixture.jpegBytes)
            .adding("OEBPS/a.xhtml", EPUBFixture.xhtml(body: """
                <section><h1>The Opening</h1>
                <p>It began, as these things do, with a letter</p>
                <ul><li>one item</li><li>another item!</li></ul>
                <pre>line one
                line two</pre></section>
                """))
            .adding("OEBPS/b.xhtml", EPUBFixture.xhtml(body: "<p>No heading here, only prose.</p>"))
            .adding("OEBPS/c.xhtml", EPUBFixture.xhtml(body: "<div><h2>A Question?</h2><p>Yes.</p></div>"))
            .write(in: directory.url, name: "no-map.epub")
    }

    func testWithoutNavOrNCXEachDocumentIsAChapterTitledByItsHeading() throws {
        let outline = try BookReader.open(try makeBookWithoutTableOfContents())
        XCTAssertEqual(outline.format, .epub3)
        XCTAssertEqual(outline.chapters.map(\.title), ["The Opening", "Chapter 2", "A Question?"],
                       "the image-only cover page is not a chapter")
    }

    /// No full stop is invented where a heading, a paragraph or a line ends without one (the
    /// narrator gives the break its pause); items that stop mid-sentence run on as lines.
    func testHeadingsAndLinesWithoutPunctuationKeepTheirWords() throws {
        let book = try Book.load(try makeBookWithoutTableOfContents())
        XCTAssertEqual(book.chapters[0].text, """
            The Opening

            It began, as these things do, with a letter

            one item
            another item!

            line one
            line two
            """)
        XCTAssertEqual(book.chapters[1].text, "No heading here, only prose.")
        XCTAssertEqual(book.chapters[2].text, "A Question?\n\nYes.")
    }

    func testCoverFromTheGuideCoverPage() throws {
        let cover = try XCTUnwrap(BookReader.open(try makeBookWithoutTableOfContents()).loadCover())
        XCTAssertEqual(cover.data, EPUBFixture.jpegBytes)
        XCTAssertEqual(cover.mediaType, "image/jpeg")
        XCTAssertEqual(cover.fileExtension, "jpg")
    }

    func testWithoutAnIdentifierTheIdentityIsAContentHash() throws {
        let outline = try BookReader.open(try makeBookWithoutTableOfContents())
        XCTAssertTrue(outline.identity.hasPrefix("fnv1a64:"), outline.identity)
        XCTAssertEqual(outline.identity.count, "fnv1a64:".count + 16)
    }

    /// EPUB 3 refinements choose the main title (not the first listed) and the authors (not the
    /// translator).
    func testRefinedTitleTypeAndCreatorRoles() throws {
        let opf = EPUBFixture.opf3(
            title: "Being a Tale of the Sea", documents: [("c1", "c1.xhtml")],
            extraMetadata: """
                <meta refines="#t1" property="title-type">subtitle</meta>
                <dc:title id="t2">The Lighthouse</dc:title>
                <meta refines="#t2" property="title-type">main</meta>
                <dc:creator id="c1">Ada Author</dc:creator>
                <meta refines="#c1" property="role" scheme="marc:relators">aut</meta>
                <dc:creator id="c2">Tom Translator</dc:creator>
                <meta refines="#c2" property="role" scheme="marc:relators">trl</meta>
                <dc:creator id="c3">Bea Author</dc:creator>
                <meta refines="#c3" property="role" scheme="marc:relators">aut</meta>
                """).replacingOccurrences(of: "<dc:title>Being", with: "<dc:title id=\"t1\">Being")
        let url = try EPUBFixture.standard(opf: opf).adding("OEBPS/c1.xhtml", EPUBFixture.xhtml(body: "<p>Hi.</p>"))
            .write(in: directory.url, name: "refined.epub")
        let outline = try BookReader.open(url)
        XCTAssertEqual(outline.title, "The Lighthouse")
        XCTAssertEqual(outline.authors, ["Ada Author", "Bea Author"])
        XCTAssertEqual(outline.identity, "urn:uuid:test-book")
    }

    func makeAnnotatedBook() throws -> URL {
        let opf = EPUBFixture.opf3(
            documents: [("text", "text.xhtml"), ("notes", "notes.xhtml")],
            extraManifest: #"<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>"#)
        let nav = EPUBFixture.xhtml(body: """
            <nav epub:type="toc"><h1>Contents</h1><ol>
              <li><a href="text.xhtml#one">One</a></li>
              <li><a href="text.xhtml#two">Two</a></li>
              <li><a href="notes.xhtml">Notes</a></li>
            </ol></nav>
            """)
        let text = EPUBFixture.xhtml(body: """
            <section id="one"><h2>One</h2>
            <p>The first claim.<a epub:type="noteref" href="notes.xhtml#n1">1</a> The second claim<sup>2</sup> stands.
            A <span epub:type="pagebreak" id="p7" title="7">7</span>page turns. Water is H<sub>2</sub>O, the 1<sup>st</sup> rule.</p>
            <aside epub:type="footnote" id="fn-inline"><p>INLINE FOOTNOTE</p></aside>
            <p hidden="hidden">HIDDEN TEXT</p><p>Ruby <ruby>漢<rt>kan</rt></ruby> done. See <a href="#two">the next part</a>.</p>
            </section>
            <section id="two"><h2>Two</h2><p>Second part<a role="doc-noteref" href="notes.xhtml#n2">[2]</a>.</p>
            <section epub:type="endnotes"><h3>Chapter Notes</h3><p>IN-CHAPTER ENDNOTES</p></section>
            </section>
            """)
        let notes = EPUBFixture.xhtml(body: """
            <section epub:type="endnotes"><h2>Notes</h2><ol>
              <li epub:type="endnote" id="n1"><p>First note.</p></li>
              <li epub:type="endnote" id="n2"><p>Second note.</p></li>
            </ol></section>
            """)
        return try EPUBFixture.standard(opf: opf)
            .adding("OEBPS/nav.xhtml", nav)
            .adding("OEBPS/text.xhtml", text)
            .adding("OEBPS/notes.xhtml", notes)
            .write(in: directory.url, name: "annotated.epub")
    }

    /// Markers, page breaks and hidden text are not read; each note is read after the paragraph
    /// referring to it (one in the notes document too), a footnote nothing refers to where it
    /// stands; a collection's other text (its heading) is not read.
    func testNoteReferencesPageBreaksAndHiddenTextAreNotReadButNotesAre() throws {
        let book = try Book.load(try makeAnnotatedBook())
        XCTAssertEqual(book.chapters.map(\.title), ["One", "Two", "Notes"])
        XCTAssertEqual(book.chapters[0].text, """
            One

            The first claim. The second claim stands. A page turns. Water is H2O, the 1st rule.

            Note: First note.

            Note: INLINE FOOTNOTE

            Ruby 漢 done. See the next part.
            """)
        XCTAssertEqual(book.chapters[1].text, "Two\n\nSecond part.\n\nNote: Second note.")
    }

    /// `notes = "skip"`: notes are read only where the table of contents points at them.
    func testSkippedNotesAreNotRead() throws {
        let outline = try BookReader.open(try makeAnnotatedBook(), options: BookReadingOptions(notes: .skip))
        XCTAssertEqual(try outline.loadChapter(0).text, """
            One

            The first claim. The second claim stands. A page turns. Water is H2O, the 1st rule.

            Ruby 漢 done. See the next part.
            """)
        XCTAssertEqual(try outline.loadChapter(1).text, "Two\n\nSecond part.")
        XCTAssertEqual(try outline.loadChapter(2).text, "Notes\n\nFirst note.\n\nSecond note.")
    }

    /// The notes document the table of contents lists is a chapter; both its notes were read
    /// after their references, so it reads its heading only (issue 23), and shows both.
    func testANotesDocumentInTheTableOfContentsReadsWhatWasNotRead() throws {
        let outline = try BookReader.open(try makeAnnotatedBook())
        XCTAssertEqual(try outline.loadChapter(2).text, "Notes")
        let markup = try outline.chapterMarkup(at: 2).html
        XCTAssertTrue(markup.contains("First note.") && markup.contains("Second note."), markup)
    }
}
