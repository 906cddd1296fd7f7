import XCTest
import LectorBooks

/// Content documents that are not well-formed XML, made at run time: each is read leniently
/// (as HTML tag soup) with the same rules as a clean one, and the chapter says so in its
/// `warnings`. The documents that describe the book (container, OPF, NCX, nav) stay strict; see
/// `BadInputTests`.
final class GeneratedSloppyXHTMLTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    /// A one-document book whose document is `content`, verbatim.
    func book(_ content: String, name: String = "sloppy.epub") throws -> URL {
        try book(Data(content.utf8), name: name)
    }

    func book(_ content: Data, name: String = "sloppy.epub") throws -> URL {
        try EPUBFixture.standard(opf: EPUBFixture.opf3(documents: [("c1", "c1.xhtml")]))
            .adding("OEBPS/c1.xhtml", content)
            .write(in: directory.url, name: name)
    }

    /// The 1-based line of the first line of `text` containing `marker`.
    func line(of marker: String, in text: String) -> Int {
        (text.components(separatedBy: "\n").firstIndex { $0.contains(marker) } ?? -1) + 1
    }

    /// Debian's live-manual `metadata.xhtml` (SiSU output), cut down: a raw `<name@host>` where
    /// `&lt;…&gt;` was meant.
    static let metadataPage = """
        <?xml version='1.0' encoding='utf-8'?>
        <html xmlns="http://www.w3.org/1999/xhtml">
          <head>
            <title>
              metadata -
            </title>
            <meta http-equiv='Content-Type' content='text/html; charset=utf-8' />
          </head>
            <body lang="en"><div class="content"><p class="norm">
          <b><b><u>Document Metadata</u></b></b>:
        </p><p class="norm">
          <b>Title</b>: Live Systems Manual
        </p><p class="norm">
          <b>Author</b>: Live Systems Project <debian-live@lists.debian.org>
        </p><p class="norm">
          <b>Rights</b>: Copyright (C) 2006-2015 Live Systems Project <br /> License: GPL-3. <br />  <br /> See http://www.gnu.org/licenses/.
        </p></div></body>
        </html>
        """

    func testAnEmailAddressInRawAngleBracketsIsReadAsText() throws {
        let url = try book(Self.metadataPage)
        let outline = try BookReader.open(url)
        let chapter = try outline.loadChapter(0)
        XCTAssertEqual(chapter.text, """
            Document Metadata:

            Title: Live Systems Manual
            Author: Live Systems Project debian-live@lists.debian.org

            Rights: Copyright (C) 2006-2015 Live Systems Project
            License: GPL-3.
            See http://www.gnu.org/licenses/.
            """)
        XCTAssertEqual(chapter.warnings.count, 1)
        let warning = try XCTUnwrap(chapter.warnings.first)
        XCTAssertTrue(warning.hasPrefix("OEBPS/c1.xhtml is not well-formed XML at line \(line(of: "<debian-live", in: Self.metadataPage))"),
                      warning)
        XCTAssertTrue(warning.hasSuffix("read leniently as HTML"), warning)
        XCTAssertEqual(outline.warnings, chapter.warnings, "the small document was parsed while opening")
        XCTAssertEqual(try Book.load(url).warnings, chapter.warnings)
    }

    /// The case `BadInputTests` used to refuse: a `<b>` closed by `</p>` closes both.
    func testMismatchedTagsCloseImplicitly() throws {
        let content = EPUBFixture.xhtml(body: """
            <p>Fine.</p>
            <p>Not <b>closed.</p>
            <p>After <i>the <b>storm</i> came</b> calm.</p>
            <div><p>Unclosed paragraph<p>and another</div>
            <ul><li>one<li>two</ul>
            <p>Line<br>break and <em>end</EM>.</p>
            """)
        let chapter = try BookReader.open(try book(content)).loadChapter(0)
        XCTAssertEqual(chapter.text, """
            Fine.

            Not closed.

            After the storm came calm.

            Unclosed paragraph
            and another

            one
            two

            Line
            break and end.
            """)
        XCTAssertEqual(chapter.warnings.count, 1)
        XCTAssertTrue(chapter.warnings[0].contains("at line \(line(of: "Not <b>", in: content)) (tag name mismatch"),
                      chapter.warnings[0])
    }

    /// Skipped elements, notes, page numbers, entities and references all follow the strict
    /// reading's rules.
    func testTheStrictReadingsRulesStillApply() throws {
        let content = """
            <!DOCTYPE html>
            <HTML><HEAD><TITLE>Rules &amp; more</TITLE>
            <style>p > b { color: red } </style>
            <script>if (a < b && c) { document.write("<p>SCRIPT</p>") }</script>
            </HEAD><BODY>
            <!-- a comment with <p>MARKUP</p> -->
            <?page-control break?>
            <h1 class=title>One &mdash; the start</h1>
            <p>Caf&eacute;&nbsp;au lait &copy 1901 &#8212; &#x2014; &bogus; AT&T, R&amp;D.<sup><a href="#n1">1</a></sup></p>
            <p>A <span class="pagenum">12</span>page <a epub:type="noteref" href="#n2">[2]</a>turns; <![CDATA[x < y]]>.</p>
            <aside epub:type="footnote" id="n1"><p>FOOTNOTE</p></aside>
            <div hidden>HIDDEN</div><p aria-hidden="true">ALSO HIDDEN</p>
            <p>Ends without closing anything
            """
        let chapter = try BookReader.open(try book(content)).loadChapter(0)
        XCTAssertEqual(chapter.title, "One — the start")
        XCTAssertEqual(chapter.text, """
            One — the start

            Café au lait © 1901 — — AT&T, R&D.

            Note: FOOTNOTE

            A page turns; x < y.

            Ends without closing anything
            """)
        XCTAssertEqual(chapter.warnings.count, 1)
    }

    /// Tags a browser would still recognise are tags, not text: garbled attributes, a stray
    /// slash, an end tag with a space. Only an unknown name in brackets without spaces (an
    /// address) or a lone `<` is text.
    func testGarbledTagsAreStillTagsAndOtherBracketsAreText() throws {
        let content = EPUBFixture.xhtml(body: """
            <p class=x"y" id="a"id="b">One<img src="a.png" / >two</ p> three.</p>
            <p>Four <span class="s" = >five</span><br/ > six <a href=http://example.org/a?b=1&amp;c=2>link</a>.</p>
            <p>If a < b and c > d then <see the notes> or <http://example.org/x>, see <www.example.org>.</p>
            <p>Unclosed <em class="x" <b>bold</b> end.</p>
            """)
        let chapter = try BookReader.open(try book(content)).loadChapter(0)
        XCTAssertEqual(chapter.text, """
            Onetwo three.

            Four five
            six link.

            If a < b and c > d then <see the notes> or http://example.org/x, see www.example.org.

            Unclosed bold end.
            """)
    }

    /// Anchors in a lenient document still split it into the table of contents' chapters. The
    /// error sits in the second chapter, so the first is cut from a strict parse that stopped at
    /// the second chapter's anchor and the rest from the lenient reading of the whole document:
    /// the two must agree on where everything is.
    func testTableOfContentsAnchorsSplitALenientDocument() throws {
        let opf = EPUBFixture.opf3(
            documents: [("book", "book.xhtml")],
            extraManifest: #"<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>"#)
        let nav = EPUBFixture.xhtml(body: """
            <nav epub:type="toc"><ol>
              <li><a href="book.xhtml#c1">One</a></li>
              <li><a href="book.xhtml#c2">Two</a></li>
              <li><a href="book.xhtml#c3">Three</a></li>
            </ol></nav>
            """)
        let body = """
            <section id="c1"><h2>One</h2><p>First part, clean.</p></section>
            <section id="c2"><h2>Two</h2><p>Write to <editor@example.org> & wait<br></p></section>
            <section><a name="c3"></a><h2>Three</h2><p>Last part.</section>
            """
        let url = try EPUBFixture.standard(opf: opf)
            .adding("OEBPS/nav.xhtml", nav)
            .adding("OEBPS/book.xhtml", EPUBFixture.xhtml(body: body))
            .write(in: directory.url, name: "anchors.epub")
        let outline = try BookReader.open(url)
        XCTAssertEqual(outline.chapters.map(\.title), ["One", "Two", "Three"])
        let chapters = try (0..<3).map { try outline.loadChapter($0) }
        XCTAssertEqual(chapters.map(\.text), [
            "One\n\nFirst part, clean.",
            "Two\n\nWrite to editor@example.org & wait",
            "Three\n\nLast part.",
        ])
        XCTAssertEqual(chapters[1].warnings.count, 1)
        XCTAssertEqual(chapters[2].warnings, chapters[1].warnings)
        try assertSourceMapRoundTrips(outline)
    }

    /// Brackets around addresses are dropped from clean documents too (`&lt;http://…&gt;`, and
    /// the doubly escaped `&amp;lt;…&amp;gt;`), with anchors and the source map moved to match.
    func testAddressBracketsAreDroppedFromCleanDocumentsToo() throws {
        let opf = EPUBFixture.opf3(
            documents: [("book", "book.xhtml")],
            extraManifest: #"<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>"#)
        let nav = EPUBFixture.xhtml(body: """
            <nav epub:type="toc"><ol><li><a href="book.xhtml#c1">One</a></li><li><a href="book.xhtml#c2">Two</a></li></ol></nav>
            """)
        let body = """
            <h2 id="c1">One</h2><p>See &lt;<a href="http://example.org/">http://example.org/</a>&gt;, mail
            &amp;lt;team@example.org&amp;gt; or &lt;list@example.org.&gt; Then cat &lt;&lt; EOF, a &lt; b &gt; c.</p>
            <h2 id="c2">Two &lt;www.example.org&gt;</h2><p>Second.</p>
            """
        let url = try EPUBFixture.standard(opf: opf).adding("OEBPS/nav.xhtml", nav)
            .adding("OEBPS/book.xhtml", EPUBFixture.xhtml(body: body))
            .write(in: directory.url, name: "addresses.epub")
        let outline = try BookReader.open(url)
        let chapters = try (0..<2).map { try outline.loadChapter($0) }
        XCTAssertEqual(chapters.map(\.text), [
            "One\n\nSee http://example.org/, mail team@example.org or list@example.org. Then cat << EOF, a < b > c.",
            "Two www.example.org\n\nSecond.",
        ])
        XCTAssertEqual(outline.warnings, [], "the document is well-formed")
        try assertSourceMapRoundTrips(outline)
    }

    /// When the error comes first, every chapter of the document is cut from the lenient reading.
    func testEveryChapterOfADocumentBrokenAtTheTopSaysSo() throws {
        let opf = EPUBFixture.opf3(
            documents: [("book", "book.xhtml")],
            extraManifest: #"<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>"#)
        let nav = EPUBFixture.xhtml(body: """
            <nav epub:type="toc"><ol><li><a href="book.xhtml#c1">One</a></li><li><a href="book.xhtml#c2">Two</a></li></ol></nav>
            """)
        let body = """
            <p>By A. Writer <writer@example.org>, with a preface that runs long enough to be a chapter of its own right here.</p>
            <h2 id="c1">One</h2><p>First.</p>
            <h2 id="c2">Two</h2><p>Second.</p>
            """
        let url = try EPUBFixture.standard(opf: opf).adding("OEBPS/nav.xhtml", nav)
            .adding("OEBPS/book.xhtml", EPUBFixture.xhtml(body: body))
            .write(in: directory.url, name: "top.epub")
        let book = try Book.load(url)
        XCTAssertEqual(book.chapters.map(\.title), ["Untitled", "One", "Two"])
        XCTAssertEqual(book.chapters.map(\.text), [
            "By A. Writer writer@example.org, with a preface that runs long enough to be a chapter of its own right here.",
            "One\n\nFirst.", "Two\n\nSecond.",
        ])
        XCTAssertTrue(book.chapters.allSatisfy { $0.warnings.count == 1 })
        XCTAssertEqual(book.warnings.count, 1)
    }

    /// A file cut short mid-tag is read as far as it goes.
    func testATruncatedDocumentIsReadAsFarAsItGoes() throws {
        let whole = EPUBFixture.xhtml(body: "<h1>Cut</h1><p>The first paragraph survives.</p><p>The second is cut <b>some words</b></p>")
        let cut = String(whole[..<whole.range(of: "me words")!.lowerBound])
        let chapter = try BookReader.open(try book(cut)).loadChapter(0)
        XCTAssertEqual(chapter.text, "Cut\n\nThe first paragraph survives.\n\nThe second is cut so")
        XCTAssertTrue(chapter.warnings[0].contains("OEBPS/c1.xhtml"))
    }

    /// Not UTF-8 and not well-formed: read as Windows-1252, as plain text would be.
    func testALatin1DocumentIsDecoded() throws {
        let content = EPUBFixture.xhtml(body: "<p>Caf\u{E9} cr\u{E8}me <b>br\u{FB}l\u{E9}e</p>")
            .replacingOccurrences(of: "UTF-8", with: "ISO-8859-1")
        let chapter = try BookReader.open(try book(try XCTUnwrap(content.data(using: .isoLatin1)))).loadChapter(0)
        XCTAssertEqual(chapter.text, "Café crème brûlée")
    }

    /// A content document that is binary data is still refused, naming the document.
    func testABinaryContentDocumentIsRefused() throws {
        let url = try book(EPUBFixture.pngBytes + Data(repeating: 0, count: 64) + Data("<p>x</p>".utf8))
        XCTAssertThrowsError(try Book.load(url)) { error in
            guard case .brokenXML(let file, let path, _, let reason) = error as? BookError else {
                return XCTFail("expected brokenXML, got \(error)")
            }
            XCTAssertEqual(file, url)
            XCTAssertEqual(path, "OEBPS/c1.xhtml")
            XCTAssertEqual(reason, "not a text document: binary data (it contains NUL bytes)")
            XCTAssertTrue("\(error)".contains(url.path))
        }
        let controls = try book(Data((0..<400).map { UInt8(1 + $0 % 8) }), name: "controls.epub")
        XCTAssertThrowsError(try Book.load(controls)) { error in
            guard case .brokenXML(_, _, _, let reason) = error as? BookError else {
                return XCTFail("expected brokenXML, got \(error)")
            }
            XCTAssertEqual(reason, "not a text document: binary data (too many control characters)")
        }
    }

    /// A cover page that is not well-formed still yields its image.
    func testASloppyCoverPageStillGivesTheCover() throws {
        let opf = EPUBFixture.opf3(
            documents: [("c1", "c1.xhtml")],
            extraManifest: #"""
                <item id="cover" href="cover.xhtml" media-type="application/xhtml+xml"/>
                <item id="img" href="front.png" media-type="image/png"/>
                """#,
            guide: #"<guide><reference type="cover" title="Cover" href="cover.xhtml"/></guide>"#)
        let url = try EPUBFixture.standard(opf: opf)
            .adding("OEBPS/c1.xhtml", EPUBFixture.xhtml(body: "<p>Hello.</p>"))
            .adding("OEBPS/cover.xhtml", "<html><body><div><img src=front.png alt=Cover></div></body></html>")
            .adding("OEBPS/front.png", EPUBFixture.pngBytes)
            .write(in: directory.url, name: "cover.epub")
        XCTAssertEqual(try BookReader.open(url).loadCover()?.data, EPUBFixture.pngBytes)
    }

    /// A clean book has no warnings anywhere.
    func testACleanBookHasNoWarnings() throws {
        let book = try Book.load(try GeneratedEPUB2Tests.makeBook(in: directory))
        XCTAssertEqual(book.warnings, [])
        XCTAssertTrue(book.chapters.allSatisfy(\.warnings.isEmpty))
    }

    /// Every span's text is the document text at its offset (see `SourceMapTests`).
    func assertSourceMapRoundTrips(_ outline: BookOutline, file: StaticString = #filePath, line: UInt = #line) throws {
        for entry in outline.chapters {
            let chapter = try outline.loadChapter(entry.index)
            for span in chapter.sourceMap {
                let document = Array(try outline.documentText(span.documentPath).unicodeScalars)
                var slice = String.UnicodeScalarView()
                slice.append(contentsOf: document[span.documentOffset..<(span.documentOffset + span.length)])
                XCTAssertEqual(chapter.text(of: span), String(slice), "chapter \(entry.index)", file: file, line: line)
            }
            XCTAssertEqual(chapter.sourceMap.last?.textRange.upperBound, chapter.text.unicodeScalars.count,
                           file: file, line: line)
        }
    }
}
