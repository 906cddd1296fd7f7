import LectorBooks
import XCTest

/// Footnotes and endnotes as real books mark them up, read after the paragraph that refers to
/// them ("Note: …"), never lost, each once; or at the chapter's end; or not at all.
final class NotesTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory?.remove() }

    func outline(_ documents: [(id: String, body: String)], toc: [(href: String, title: String)]? = nil,
                 options: BookReadingOptions = .default) throws -> BookOutline {
        try PatternBook(directory).open(documents, toc: toc, options: options)
    }

    /// pandoc's EPUB 3: `role="doc-noteref"` links around a `sup`, the notes in a
    /// `role="doc-endnotes"` section at the end of each chapter file, with back links.
    func testPandocEndnotesAtTheEndOfAChapterFile() throws {
        let book = try outline([("c1", """
            <section id="one"><h1>One</h1>
            <p>The claim.<a href="#fn1" class="footnote-ref" id="fnref1" role="doc-noteref"><sup>1</sup></a> More.</p>
            <p>Next paragraph.<a href="#fn2" class="footnote-ref" id="fnref2" role="doc-noteref"><sup>2</sup></a></p>
            <p>Last paragraph.</p>
            </section>
            <section id="footnotes" class="footnotes footnotes-end-of-document" role="doc-endnotes">
            <hr /><ol>
            <li id="fn1" role="doc-endnote"><p>First source.<a href="#fnref1" class="footnote-back" role="doc-backlink">↩︎</a></p></li>
            <li id="fn2" role="doc-endnote"><p>Second source.<a href="#fnref2" class="footnote-back" role="doc-backlink">↩︎</a></p></li>
            </ol></section>
            """)])
        XCTAssertEqual(try book.loadChapter(0).text, """
            One

            The claim. More.

            Note: First source.

            Next paragraph.

            Note: Second source.

            Last paragraph.
            """)
    }

    /// Standard Ebooks: `epub:type="noteref"` links into a separate `endnotes.xhtml` that the
    /// table of contents lists; each note is read after its paragraph, and the Endnotes chapter
    /// reads its heading only: its one note was read already (issue 23).
    func testStandardEbooksEndnotesInAnotherDocument() throws {
        let book = try outline([
            ("chapter-1", """
                <section id="chapter-1" epub:type="chapter"><h2 epub:type="title">I</h2>
                <p>He left<a href="endnotes.xhtml#note-1" id="noteref-1" epub:type="noteref">1</a> at dawn.</p>
                <p>She stayed.</p></section>
                """),
            ("endnotes", """
                <section id="endnotes" epub:type="backmatter endnotes"><h2 epub:type="title">Endnotes</h2><ol>
                <li id="note-1" epub:type="endnote"><p>Dawn came late that year. <a href="chapter-1.xhtml#noteref-1" epub:type="backlink">↩</a></p></li>
                </ol></section>
                """),
        ], toc: [("chapter-1.xhtml", "I"), ("endnotes.xhtml", "Endnotes")])
        XCTAssertEqual(try book.loadChapter(0).text, "I\n\nHe left at dawn.\n\nNote: Dawn came late that year.\n\nShe stayed.")
        XCTAssertEqual(try book.loadChapter(1).text, "Endnotes")
    }

    /// An endnotes document in the reading order, listed by the table of contents: a note read
    /// after its reference (in whichever chapter, loaded in whichever order) is not read again in
    /// the Endnotes chapter, whose heading, introduction and unreferenced note still are; the
    /// page shows every note there, in one list, and tags every word it reads.
    func testANoteReadAtItsReferenceIsNotReadAgainInTheNotesChapter() throws {
        let documents: [(id: String, body: String)] = [
            ("chapter-1", """
                <section epub:type="chapter"><h2>I</h2>
                <p>He left<a href="endnotes.xhtml#note-1" epub:type="noteref">1</a> at dawn.</p></section>
                """),
            ("chapter-2", """
                <section epub:type="chapter"><h2>II</h2>
                <p>She stayed<a href="endnotes.xhtml#note-2" epub:type="noteref">2</a>.</p>
                <p>And again<a href="endnotes.xhtml#note-1" epub:type="noteref">1</a>.</p></section>
                """),
            ("endnotes", """
                <section id="endnotes" epub:type="backmatter endnotes"><h2>Endnotes</h2>
                <p>Notes by the editor.</p><ol>
                <li id="note-1" epub:type="endnote"><p>Dawn came late that year. <a href="chapter-1.xhtml" epub:type="backlink">↩</a></p></li>
                <li id="note-2" epub:type="endnote"><p>In <i>Paris</i>.</p><p>Second paragraph.</p></li>
                <li id="note-3" epub:type="endnote"><p>Nothing refers to me.</p></li>
                </ol></section>
                """),
        ]
        let toc = [("chapter-1.xhtml", "I"), ("chapter-2.xhtml", "II"), ("endnotes.xhtml", "Endnotes")]
        let book = try outline(documents, toc: toc)
        // The notes chapter first: what it leaves out does not depend on what was loaded before.
        let notes = try book.loadChapter(2)
        XCTAssertEqual(notes.text, "Endnotes\n\nNotes by the editor.\n\nNothing refers to me.")
        XCTAssertEqual(try book.loadChapter(0).text, "I\n\nHe left at dawn.\n\nNote: Dawn came late that year.")
        XCTAssertEqual(try book.loadChapter(1).text, """
            II

            She stayed.

            Note: In Paris.

            Second paragraph.

            And again.

            Note: Dawn came late that year.
            """)
        let markup = try book.chapterMarkup(at: 2)
        for shown in ["Dawn came late that year.", "Paris</i>.", "Second paragraph.", "Nothing refers to me."] {
            XCTAssertTrue(markup.html.contains(shown), "the page shows \(shown): \(markup.html)")
        }
        XCTAssertEqual(markup.html.components(separatedBy: "<ol>").count - 1, 1, "one list: \(markup.html)")
        XCTAssertEqual(try ReadAlongMarkupCheck.spans(markup).map(\.text),
                       ["Endnotes", "Notes by the editor.", "Nothing refers to me."])
        XCTAssertEqual(try ReadAlongMarkupCheck.problems(inEveryChapterOf: book), [])

        // At the end of the referring chapter: the same. Not read at all: the notes chapter
        // reads every note, as it always did.
        let atEnd = try outline(documents, toc: toc, options: BookReadingOptions(notes: .endOfChapter))
        XCTAssertEqual(try atEnd.loadChapter(2).text, notes.text)
        XCTAssertEqual(try atEnd.loadChapter(0).text, "I\n\nHe left at dawn.\n\nNote: Dawn came late that year.")
        let skipped = try outline(documents, toc: toc, options: BookReadingOptions(notes: .skip))
        XCTAssertEqual(try skipped.loadChapter(2).text, """
            Endnotes

            Notes by the editor.

            Dawn came late that year.

            In Paris.

            Second paragraph.

            Nothing refers to me.
            """)
        XCTAssertEqual(try skipped.loadChapter(1).text, "II\n\nShe stayed.\n\nAnd again.")
    }

    /// Notes the table of contents does not point at, in a document of the reading order after
    /// a heading: taken out of the flow, read after their references in another document; where
    /// they stand, only the one nothing refers to is read, and the page shows both.
    func testMovedNotesReadInAnotherDocumentAreNotReadWhereTheyStand() throws {
        let book = try outline([
            ("c1", #"<h1>One</h1><p>Text<a epub:type="noteref" href="notes.xhtml#n1">*</a>.</p>"#),
            ("notes", """
                <h1>Notes</h1><section epub:type="endnotes">
                <aside epub:type="endnote" id="n1"><p>Read at the reference.</p></aside>
                <aside epub:type="endnote" id="n2"><p>Read here.</p></aside></section>
                """),
        ], toc: [("c1.xhtml", "One"), ("notes.xhtml", "Notes")])
        XCTAssertEqual(try book.loadChapter(1).text, "Notes\n\nNote: Read here.")
        XCTAssertEqual(try book.loadChapter(0).text, "One\n\nText.\n\nNote: Read at the reference.")
        let markup = try book.chapterMarkup(at: 1)
        XCTAssertTrue(markup.html.contains("<aside class=\"note\"><p>Read at the reference.</p></aside>"), markup.html)
        XCTAssertEqual(try ReadAlongMarkupCheck.problems(inEveryChapterOf: book), [])
    }

    /// A notes file left out of the reading order (`linear="no"`) is read only through its references.
    func testNotesInANonLinearDocumentAreReadThroughTheirReferences() throws {
        var book = PatternBook(directory)
        book.extraManifest = #"<item id="notes" href="notes.xhtml" media-type="application/xhtml+xml"/>"#
        book.entries = [("OEBPS/notes.xhtml", Data(EPUBFixture.xhtml(body: """
            <aside epub:type="footnote" id="n1"><p>Hidden away.</p></aside>
            """).utf8))]
        let outline = try book.open([("c1", #"<p>Text<a epub:type="noteref" href="notes.xhtml#n1">*</a>.</p>"#)])
        XCTAssertEqual(outline.chapters.count, 1)
        XCTAssertEqual(try outline.loadChapter(0).text, "Text.\n\nNote: Hidden away.")
    }

    /// EPUB 3 `aside` footnotes right after their paragraph; an `aside` without a type that a
    /// note reference points at is a note too; a note referred to twice is read once.
    func testAsideFootnotesAndNotesReferredToTwice() throws {
        let book = try outline([("c1", """
            <p>One<a epub:type="noteref" href="#a">a</a> and again<a epub:type="noteref" href="#a">a</a>.</p>
            <aside epub:type="footnote" id="a"><p>The a note.</p></aside>
            <p>Two<sup><a href="#b">2</a></sup>.</p>
            <aside id="b"><p>An untyped aside.</p></aside>
            <p>Three<a epub:type="noteref" href="#a">a</a>.</p>
            """)])
        XCTAssertEqual(try book.loadChapter(0).text, """
            One and again.

            Note: The a note.

            Two.

            Note: An untyped aside.

            Three.
            """)
    }

    /// A footnote inside a paragraph (no reference) is read after that paragraph, not mid-sentence;
    /// Gutenberg-style notes without any semantics are plain text, read where they stand.
    func testInlineFootnotesAndUntypedNotes() throws {
        let book = try outline([("c1", """
            <p>It rained<span epub:type="footnote">In Paris.</span> all day.</p>
            <p>See below.<a href="#fn1" id="r1"><sup>1</sup></a></p>
            <div class="footnote"><p><a id="fn1" href="#r1">1</a> A plain note.</p></div>
            """)])
        XCTAssertEqual(try book.loadChapter(0).text, """
            It rained all day.

            Note: In Paris.

            See below.

            A plain note.
            """)
    }

    /// `notes = "end-of-chapter"`: in the order of reference, after the chapter's last words.
    func testNotesAtTheEndOfTheChapter() throws {
        let book = try outline([("c1", """
            <p>First<a epub:type="noteref" href="#n2">2</a>.</p>
            <p>Second<a epub:type="noteref" href="#n1">1</a>.</p>
            <aside epub:type="footnote" id="n1"><p>Note one.</p></aside>
            <aside epub:type="footnote" id="n2"><p>Note two.</p></aside>
            """)], options: BookReadingOptions(notes: .endOfChapter))
        XCTAssertEqual(try book.loadChapter(0).text, "First.\n\nSecond.\n\nNote: Note two.\n\nNote: Note one.")
    }

    /// Chapters of one file cut at anchors: a chapter reads the notes its paragraphs refer to,
    /// from the notes at the end of the file (which a first, partial parse has not reached), and
    /// only those.
    func testChaptersOfOneFileReadTheirOwnNotes() throws {
        let book = try outline([("c1", """
            <section id="a"><h2>A</h2><p>Alpha<a epub:type="noteref" href="#n1">1</a>.</p></section>
            <section id="b"><h2>B</h2><p>Beta<a epub:type="noteref" href="#n2">2</a>.</p></section>
            <section epub:type="footnotes">
            <aside epub:type="footnote" id="n1"><p>About alpha.</p></aside>
            <aside epub:type="footnote" id="n2"><p>About beta.</p></aside>
            <aside epub:type="footnote" id="n3"><p>About nothing.</p></aside>
            </section>
            """)], toc: [("c1.xhtml#a", "A"), ("c1.xhtml#b", "B")])
        XCTAssertEqual(try book.loadChapter(0).text, "A\n\nAlpha.\n\nNote: About alpha.")
        XCTAssertEqual(try book.loadChapter(1).text, "B\n\nBeta.\n\nNote: About beta.\n\nNote: About nothing.",
                       "a note nothing refers to is read where it stands: never lost")
    }

    /// A note with no text after one with text (found by the fuzzer: the empty note's start lay
    /// past the end of the notes' text) is no note; sloppy markup around notes is read leniently.
    func testEmptyNotesAndNotesInBrokenMarkupAreSafe() throws {
        let book = try outline([("c1", """
            <p>Text<a epub:type="noteref" href="#n1">1</a><a epub:type="noteref" href="#n2">2</a>.</p>
            <aside epub:type="footnote" id="n1"><p>One.</p></aside>
            <aside epub:type="footnote" id="n2"></aside><aside epub:type="footnote" id="n3"><p> </p></aside>
            """)])
        XCTAssertEqual(try book.loadChapter(0).text, "Text.\n\nNote: One.")
        var broken = PatternBook(directory)
        broken.entries = [("OEBPS/c2.xhtml", Data("""
            <html><body><p>A<sup><a href="#n1">1</a></sup></p><aside epub:type="footnote" id="n1"><p>Note</aside>\
            <aside epub:type="footnote"></p><p>Unclosed <b>note</aside><pre>a\nb</pre></body>
            """.utf8))]
        broken.extraManifest = #"<item id="c2" href="c2.xhtml" media-type="application/xhtml+xml"/>"#
        let outline = try broken.open([("c1", "<p>First.</p>")], toc: [("c1.xhtml", "One"), ("c2.xhtml", "Two")],
                                      name: "broken.epub")
        XCTAssertEqual(outline.chapters.count, 1, "c2 is not in the spine")
        _ = try outline.loadBook()
    }

    /// The label is the book's language's.
    func testTheLabelSpeaksTheBooksLanguage() throws {
        var book = PatternBook(directory)
        book.language = "de-DE"
        let outline = try book.open([("c1", """
            <p>Text<a epub:type="noteref" href="#n">1</a>.</p><aside epub:type="footnote" id="n"><p>Eine Anmerkung.</p></aside>
            """)])
        XCTAssertEqual(try outline.loadChapter(0).text, "Text.\n\nAnmerkung: Eine Anmerkung.")
    }

    /// Every chapter's markup of these books still tags every word, labels aside.
    func testMarkupOfNoteBooksPassesTheReadAlongCheck() throws {
        for options in [BookReadingOptions.default, BookReadingOptions(notes: .endOfChapter), BookReadingOptions(notes: .skip)] {
            let book = try outline([("c1", """
                <section id="a"><h2>A</h2><p>Alpha<a epub:type="noteref" href="#n1">1</a> and <em>more</em>.</p></section>
                <section id="b"><h2>B</h2><p>Beta<span epub:type="footnote">Inline <b>bold</b>.</span> end.</p></section>
                <section epub:type="footnotes"><aside epub:type="footnote" id="n1"><p>About <i>alpha</i>.</p></aside></section>
                """)], toc: [("c1.xhtml#a", "A"), ("c1.xhtml#b", "B")], options: options)
            XCTAssertEqual(try ReadAlongMarkupCheck.problems(inEveryChapterOf: book), [], "\(options)")
        }
    }
}
