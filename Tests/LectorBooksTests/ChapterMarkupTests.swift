import Foundation
import FoundationXML
import LectorBooks
import LectorTestKit
import XCTest

/// The read-along page's chapter markup on the patterns real books use, in small EPUBs written
/// here: what is shown and how, what is shown but not spoken, what is never shown, and that every
/// chapter still passes `ReadAlongMarkupCheck` (offsets, order, coverage, allowlist).
final class ChapterMarkupTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory?.remove() }

    struct Document {
        var id: String
        var href: String
        var body: String
    }

    /// An EPUB 3 book: `documents` in the spine (under OEBPS/), a nav listing `toc`
    /// (href, title), and any other manifest items and archive entries.
    func book(_ documents: [Document], toc: [(href: String, title: String)], extraManifest: String = "",
              entries: [(path: String, data: Data)] = [], name: String = "book.epub",
              options: BookReadingOptions = .default) throws -> BookOutline {
        let navItems = toc.map { "<li><a href=\"\($0.href)\">\($0.title)</a></li>" }.joined()
        var writer = EPUBWriter.standard(opf: EPUBFixture.opf3(
            documents: documents.map { ($0.id, $0.href) },
            extraManifest: #"<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>"#
                + extraManifest))
            .adding("OEBPS/nav.xhtml", EPUBFixture.xhtml(body: "<nav epub:type=\"toc\"><ol>\(navItems)</ol></nav>"))
        for document in documents {
            writer = writer.adding("OEBPS/" + document.href, EPUBFixture.xhtml(body: document.body))
        }
        for entry in entries { writer = writer.adding(entry.path, entry.data) }
        let url = directory.url.appendingPathComponent(name)
        try writer.write(to: url)
        return try BookReader.open(url, options: options)
    }

    /// A one-chapter book holding `body`, its chapter's text and markup, checked.
    func chapter(_ body: String, extraManifest: String = "", entries: [(path: String, data: Data)] = [],
                 options: BookReadingOptions = .default,
                 file: StaticString = #filePath, line: UInt = #line) throws -> (text: String, markup: ChapterMarkup) {
        let outline = try book([Document(id: "c1", href: "c1.xhtml", body: body)], toc: [("c1.xhtml", "One")],
                               extraManifest: extraManifest, entries: entries, options: options)
        XCTAssertEqual(outline.chapters.count, 1, file: file, line: line)
        let text = try outline.loadChapter(0).text
        let markup = try outline.chapterMarkup(at: 0)
        XCTAssertEqual(try ReadAlongMarkupCheck.problems(markup, text: text), [], markup.html, file: file, line: line)
        return (text, markup)
    }

    /// The scalar offset of `needle` in `text`: what a span holding it must say.
    func offset(of needle: String, in text: String) throws -> Int {
        let scalars = Array(text.unicodeScalars), wanted = Array(needle.unicodeScalars)
        for start in 0...max(0, scalars.count - wanted.count) where Array(scalars[start..<(start + wanted.count)]) == wanted {
            return start
        }
        XCTFail("\"\(needle)\" is not in \"\(text)\"")
        throw CocoaError(.fileNoSuchFile)
    }

    func elements(_ name: String, in markup: ChapterMarkup) throws -> [XMLElement] {
        try ReadAlongMarkupCheck.parse(markup.html).nodes(forXPath: "//" + name).compactMap { $0 as? XMLElement }
    }

    // MARK: Shown and spoken

    func testEmphasisInsideAParagraphKeepsItsElementsAndSpaces() throws {
        let (text, markup) = try chapter("<p>It was a <em>dark</em> and <strong>stormy</strong> night.</p>")
        XCTAssertEqual(text, "It was a dark and stormy night.")
        let dark = try offset(of: "dark", in: text), stormy = try offset(of: "stormy", in: text)
        XCTAssertEqual(markup.html, """
            <p><span data-o="0">It was a</span><em> <span data-o="\(dark)">dark</span></em> \
            <span data-o="\(dark + 5)">and</span><strong> <span data-o="\(stormy)">stormy</span></strong> \
            <span data-o="\(stormy + 7)">night.</span></p>
            """)
        let page = try ReadAlongMarkupCheck.parse(markup.html).stringValue
        XCTAssertEqual(page, "It was a dark and stormy night.", "the page reads like the text, spaces and all")
    }

    func testListsTablesHeadingsAndLineBreaks() throws {
        let (text, markup) = try chapter("""
            <h1>Heading One</h1>
            <h3 dir="rtl" id="h3">Minor heading</h3>
            <ul><li>First item</li><li>Second <b>item</b></li></ul>
            <ol><li>Only</li></ol>
            <dl><dt>Term</dt><dd>Definition</dd></dl>
            <table style="width:100%"><caption>Caption</caption>
              <thead><tr><th colspan="2" onclick="alert(1)">Head</th></tr></thead>
              <tbody><tr><td rowspan="x2">Left</td><td rowspan="3" class="c">Right</td></tr></tbody>
            </table>
            <p>Line one<br/>line two<hr/></p>
            """)
        XCTAssertTrue(text.hasPrefix("Heading One\n\nMinor heading\n\nFirst item\nSecond item"), text)
        XCTAssertEqual(try elements("h1", in: markup).map(\.stringValue), ["Heading One"])
        XCTAssertEqual(try elements("h3", in: markup).first?.attribute(forName: "dir")?.stringValue, "rtl")
        XCTAssertEqual(try elements("ul/li", in: markup).map(\.stringValue), ["First item", "Second item"])
        XCTAssertEqual(try elements("ol/li", in: markup).count, 1)
        XCTAssertEqual(try elements("dl/dt", in: markup).map(\.stringValue), ["Term"])
        XCTAssertEqual(try elements("dl/dd", in: markup).map(\.stringValue), ["Definition"])
        XCTAssertEqual(try elements("table/caption", in: markup).map(\.stringValue), ["Caption"])
        let head = try XCTUnwrap(try elements("table/thead/tr/th", in: markup).first)
        XCTAssertEqual(head.attribute(forName: "colspan")?.stringValue, "2")
        XCTAssertNil(head.attribute(forName: "onclick"))
        let cells = try elements("table/tbody/tr/td", in: markup)
        XCTAssertEqual(cells.map(\.stringValue), ["Left", "Right"])
        XCTAssertNil(cells[0].attribute(forName: "rowspan"), "not digits")
        XCTAssertEqual(cells[1].attribute(forName: "rowspan")?.stringValue, "3")
        XCTAssertEqual(try elements("p/br", in: markup).count, 1)
        XCTAssertEqual(try elements("hr", in: markup).count, 1)
        XCTAssertFalse(markup.html.contains("</br>"), "a void element has no end tag")
        XCTAssertFalse(markup.html.contains("style") || markup.html.contains("onclick") || markup.html.contains("id="))
    }

    func testPreformattedLinesStayLines() throws {
        let (text, markup) = try chapter("<pre><code>cat &lt;&lt; EOF\n  echo hi\nEOF</code></pre>")
        XCTAssertEqual(text, "cat << EOF\necho hi\nEOF")
        let pre = try XCTUnwrap(try elements("pre", in: markup).first)
        XCTAssertEqual(pre.stringValue, "cat << EOF\necho hi\nEOF", "lines shown as lines")
        XCTAssertTrue(markup.html.contains("cat &lt;&lt; EOF"), markup.html)
        XCTAssertEqual(try elements("pre/code", in: markup).count, 1)
    }

    // MARK: Shown, not spoken

    func testNoteMarkersAreShownNotSpoken() throws {
        let (text, markup) = try chapter("""
            <p>A claim<sup>3</sup> and another<a href="#fn4">[4]</a> and a third\
            <a epub:type="noteref" href="#n5">5</a>.</p>
            <p>On the 1<sup>st</sup> day, see <a href="#fn4">the notes</a>.</p>
            <aside epub:type="footnote" id="fn4"><p>Four.</p></aside>
            """, options: BookReadingOptions(notes: .skip))
        XCTAssertEqual(text, "A claim and another and a third.\n\nOn the 1st day, see the notes.")
        XCTAssertEqual(try elements("sup[@class='noteref']", in: markup).map(\.stringValue), ["3", "[4]", "5"])
        let st = try XCTUnwrap(try elements("sup[not(@class)]", in: markup).first)
        XCTAssertEqual(st.stringValue, "st", "a superscript that is no marker is spoken, in its sup")
        XCTAssertEqual(try ReadAlongMarkupCheck.spans(markup).first { $0.text == "st" }?.offset,
                       try offset(of: "st day", in: text))
        XCTAssertTrue(markup.html.contains(#"<span> <span data-o="\#(try offset(of: "the notes", in: text))">the notes</span></span>"#),
                      "a link that is no marker is read and shown as a span, without its href: \(markup.html)")
    }

    /// With `notes = "skip"`, notes are shown where they stood and not spoken.
    func testSkippedFootnotesAreShownAfterWhereTheyStandNotSpoken() throws {
        let (text, markup) = try chapter("""
            <p>Text with an inline note<span epub:type="footnote">Inline <em>note</em> body.</span> here.</p>
            <aside epub:type="footnote" id="fn1"><p>First note.</p><p>Second <span class="pagenum">12</span>paragraph.</p></aside>
            <p>After.</p>
            """, options: BookReadingOptions(notes: .skip))
        XCTAssertEqual(text, "Text with an inline note here.\n\nAfter.")
        let notes = try elements("aside[@class='note']", in: markup)
        XCTAssertEqual(notes.map { ($0.children ?? []).map { $0.stringValue ?? "" } },
                       [["Inline note body."], ["First note.", "Second paragraph."]])
        XCTAssertEqual(try elements("p/aside", in: markup).count, 0, "a note inside a paragraph waits for its end")
        let html = markup.html
        let inline = try XCTUnwrap(html.range(of: "Inline note body.")), here = try XCTUnwrap(html.range(of: "here."))
        let after = try XCTUnwrap(html.range(of: "After."))
        XCTAssertLessThan(here.lowerBound, inline.lowerBound)
        XCTAssertLessThan(inline.lowerBound, after.lowerBound)
        XCTAssertFalse(html.contains("12paragraph") || html.contains("12 paragraph"), "a page number in a note is not shown")
    }

    /// Notes read after their paragraph are shown there, in an aside with the label the listener
    /// hears, their words in spans like any other; where they stood, nothing is left.
    func testNotesReadAfterTheirParagraphAreShownWhereTheyAreHeard() throws {
        let (text, markup) = try chapter("""
            <p>A claim.<a epub:type="noteref" href="#fn1">1</a> More text.</p>
            <p>After.</p>
            <aside epub:type="footnote" id="fn1"><p>First <em>note</em>.</p><p>Second <span class="pagenum">12</span>paragraph.</p></aside>
            """)
        XCTAssertEqual(text, "A claim. More text.\n\nNote: First note.\n\nSecond paragraph.\n\nAfter.")
        let notes = try elements("aside[@class='note']", in: markup)
        XCTAssertEqual(notes.count, 1, markup.html)
        XCTAssertEqual(notes.first?.stringValue, "Note: First note.Second paragraph.")
        XCTAssertEqual(try elements("aside/p/em/span", in: markup).map(\.stringValue), ["note"])
        let spans = try ReadAlongMarkupCheck.spans(markup)
        XCTAssertEqual(spans.first { $0.text == "First" }?.offset, try offset(of: "First note", in: text))
        XCTAssertEqual(try elements("sup[@class='noteref']", in: markup).map(\.stringValue), ["1"], "the marker stays shown")
        let html = markup.html
        XCTAssertLessThan(try XCTUnwrap(html.range(of: "More text")).lowerBound, try XCTUnwrap(html.range(of: "Note: ")).lowerBound)
        XCTAssertLessThan(try XCTUnwrap(html.range(of: "Second")).lowerBound, try XCTUnwrap(html.range(of: "After.")).lowerBound)
    }

    func testHiddenScriptsStylesAndSVGAreNotShown() throws {
        let (text, markup) = try chapter("""
            <p>Visible.</p>
            <p hidden="hidden">Hidden paragraph.</p>
            <p aria-hidden="true">Aria hidden.</p>
            <script>document.write("scripted")</script>
            <style>p { color: red }</style>
            <svg xmlns="http://www.w3.org/2000/svg"><text>Vector text</text></svg>
            <math xmlns="http://www.w3.org/1998/Math/MathML"><mi>x</mi></math>
            <span epub:type="pagebreak" id="p7">7</span>
            <nav><p>Navigation</p></nav>
            <p>Line <span class="lnum">20</span>end.</p>
            """)
        XCTAssertEqual(text, "Visible.\n\nLine end.")
        for hidden in ["Hidden", "Aria", "scripted", "color", "Vector", "<mi", ">7<", "Navigation", ">20", "script", "svg"] {
            XCTAssertFalse(markup.html.contains(hidden), "\(hidden) shown: \(markup.html)")
        }
    }

    // MARK: Images

    func testImagesInTheManifestAreShownByResourceID() throws {
        let manifest = """
            <item id="fig.2_é" href="images/fig1.png" media-type="image/png"/>
            <item id="photo" href="images/photo.jpg" media-type="image/jpg"/>
            <item id="sheet" href="style.css" media-type="text/css"/>
            """
        let (_, markup) = try chapter("""
            <p>Before.</p>
            <figure><img src="images/fig1.png" alt="A &quot;figure&quot; &amp; more"/>
              <figcaption>The caption.</figcaption></figure>
            <p><img src="./images/photo.jpg"/> <img src="images/fig1.png" alt="again"/></p>
            <p><img src="http://evil.example/track.png" alt="external"/><img src="../../etc/passwd" alt="escapes"/>
            <img src="images/unlisted.png" alt="unlisted"/><img src="style.css" alt="css"/>
            <img src="data:image/png;base64,AAAA" alt="data"/>After.</p>
            <p>See <a href="#fig"><img src="images/photo.jpg" alt="linked"/></a> here.</p>
            """, extraManifest: manifest,
            entries: [("OEBPS/images/fig1.png", EPUBFixture.pngBytes), ("OEBPS/images/photo.jpg", EPUBFixture.jpegBytes),
                      ("OEBPS/images/unlisted.png", EPUBFixture.pngBytes), ("OEBPS/style.css", Data("p{}".utf8))],
            options: BookReadingOptions(images: .skip))
        XCTAssertEqual(markup.resources, ["fig.2_é", "photo"])
        let images = try elements("img", in: markup)
        XCTAssertEqual(images.map { $0.attribute(forName: "src")?.stringValue },
                       ["resource/fig.2_%C3%A9", "resource/photo", "resource/fig.2_%C3%A9", "resource/photo"])
        XCTAssertEqual(images.map { $0.attribute(forName: "alt")?.stringValue },
                       [#"A "figure" & more"#, "", "again", "linked"], "an image inside a link into the book is shown too")
        XCTAssertTrue(markup.html.contains(#"alt="A &quot;figure&quot; &amp; more""#), markup.html)
        for dropped in ["evil", "passwd", "unlisted", "css", "data:", "external", "escapes"] {
            XCTAssertFalse(markup.html.contains(dropped), "\(dropped): \(markup.html)")
        }
        XCTAssertEqual(try elements("figure/figcaption", in: markup).map(\.stringValue), ["The caption."])
    }

    func testResourcesAreTheManifestsImagesOnly() throws {
        let outline = try book([Document(id: "c1", href: "c1.xhtml", body: "<p>Text.</p>")], toc: [("c1.xhtml", "One")],
                               extraManifest: """
                                   <item id="fig" href="images/fig.png" media-type="image/png"/>
                                   <item id="photo" href="photo.jpeg" media-type="IMAGE/JPG"/>
                                   <item id="drawing" href="d.svg" media-type="image/svg+xml"/>
                                   <item id="sheet" href="style.css" media-type="text/css"/>
                                   <item id="raw" href="raw.tiff" media-type="image/tiff"/>
                                   <item id="gone" href="images/missing.png" media-type="image/png"/>
                                   """,
                               entries: [("OEBPS/images/fig.png", EPUBFixture.pngBytes),
                                         ("OEBPS/photo.jpeg", EPUBFixture.jpegBytes),
                                         ("OEBPS/d.svg", Data("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)),
                                         ("OEBPS/style.css", Data("p{}".utf8)), ("OEBPS/raw.tiff", Data([0x49, 0x49]))])
        XCTAssertEqual(try outline.resource(id: "fig"), BookResource(mediaType: "image/png", data: EPUBFixture.pngBytes))
        XCTAssertEqual(try outline.resource(id: "photo"), BookResource(mediaType: "image/jpeg", data: EPUBFixture.jpegBytes))
        XCTAssertEqual(try outline.resource(id: "drawing").mediaType, "image/svg+xml")
        for refused in ["sheet", "raw", "c1", "nav", "nope", "", "../fig"] {
            XCTAssertThrowsError(try outline.resource(id: refused), refused) { error in
                XCTAssertEqual(error as? BookError, .noSuchResource(file: outline.sourceURL, id: refused))
                XCTAssertTrue("\(error)".contains("no image with manifest id"), "\(error)")
            }
        }
        XCTAssertThrowsError(try outline.resource(id: "gone")) { error in
            XCTAssertEqual(error as? BookError, .missingResource(file: outline.sourceURL, path: "OEBPS/images/missing.png"))
        }
    }

    // MARK: Text that changes after extraction, and scalars

    func testAnAddressLosesItsBracketsOnThePageToo() throws {
        let (text, markup) = try chapter("""
            <p>Write to &lt;debian-live@lists.debian.org&gt; or see &lt;<a href="http://live-systems.org/">\
            http://live-systems.org/</a>&gt;.</p>
            """)
        XCTAssertEqual(text, "Write to debian-live@lists.debian.org or see http://live-systems.org/.")
        XCTAssertFalse(markup.html.contains("&lt;") || markup.html.contains("&gt;"), markup.html)
        XCTAssertFalse(markup.html.contains("href"), markup.html)
    }

    func testOffsetsCountUnicodeScalarsNotUTF16() throws {
        let (text, markup) = try chapter("<p>Smile 😀 and <em>𝔘</em>nicode, 👩‍👩‍👧 family <b>é</b>.</p>")
        let spans = try ReadAlongMarkupCheck.spans(markup)
        let fraktur = try XCTUnwrap(spans.first { $0.text == "𝔘" })
        XCTAssertEqual(fraktur.offset, 12, "S-m-i-l-e, space, 😀, space, a-n-d, space: 12 scalars, 13 UTF-16 units before")
        XCTAssertEqual(fraktur.offset, try offset(of: "𝔘", in: text))
        XCTAssertEqual(try XCTUnwrap(spans.first { $0.text == "é" }).offset, try offset(of: "é", in: text))
    }

    func testXMLLangIsShownAsLang() throws {
        let (_, markup) = try chapter("""
            <p xml:lang="fr">Bonjour <span lang="de-AT">Servus</span> <em xml:lang="bad value">x</em></p>
            """)
        XCTAssertEqual(try elements("p", in: markup).first?.attribute(forName: "lang")?.stringValue, "fr")
        XCTAssertEqual(try elements("p/span[@lang]", in: markup).first?.attribute(forName: "lang")?.stringValue, "de-AT")
        XCTAssertNil(try elements("p/em", in: markup).first?.attribute(forName: "lang"))
    }

    // MARK: Cutting chapters

    /// c1 holds "Opening" and, from the anchor `mid` inside its section, "Middle"; c2 holds no
    /// chapter start, so "Middle" runs on through it; c3 starts with a "Part Two" entry at the same
    /// spot as "Chapter Three", which leaves Part Two with no text: it merges into Chapter Three;
    /// a last "Ghost" entry points at an anchor c3 lacks: it has no text and shows its title.
    func makeCutBook() throws -> BookOutline {
        try book([
            Document(id: "c1", href: "c1.xhtml", body: """
                <section><h1>Opening</h1><p>First words.</p>
                <div class="box"><p id="mid"><em>Middle</em> words.</p><p>More middle.</p></div></section>
                """),
            Document(id: "c2", href: "c2.xhtml", body: "<section><p>Second document.</p></section>"),
            Document(id: "c3", href: "c3.xhtml", body: """
                <section id="part2"><h1 id="ch3">Chapter Three</h1><p>Third words.</p></section>
                """),
        ], toc: [("c1.xhtml", "Opening"), ("c1.xhtml#mid", "Middle"), ("c3.xhtml#part2", "Part Two"),
                 ("c3.xhtml#ch3", "Chapter Three"), ("c3.xhtml#missing", "Ghost")])
    }

    func testAChapterFromAnAnchorMidDocumentThroughTheNextDocument() throws {
        let outline = try makeCutBook()
        XCTAssertEqual(outline.chapters.map(\.title), ["Opening", "Middle", "Part Two — Chapter Three", "Ghost"])
        let opening = try outline.chapterMarkup(at: 0)
        XCTAssertEqual(try outline.loadChapter(0).text, "Opening\n\nFirst words.")
        XCTAssertEqual(opening.html, """
            <section><h1><span data-o="0">Opening</span></h1><p><span data-o="9">First words.</span></p><div></div></section>
            """, "the div holding the next chapter's anchor opens before it, empty here")

        let middle = try outline.loadChapter(1)
        XCTAssertEqual(middle.text, "Middle words.\n\nMore middle.\n\nSecond document.")
        let markup = try outline.chapterMarkup(at: 1)
        XCTAssertEqual(markup.html, """
            <section><div><p><em><span data-o="0">Middle</span></em> <span data-o="7">words.</span></p>\
            <p><span data-o="15">More middle.</span></p></div></section>\
            <section><p><span data-o="29">Second document.</span></p></section>
            """)
        for index in outline.chapters.indices {
            XCTAssertEqual(try ReadAlongMarkupCheck.problems(try outline.chapterMarkup(at: index),
                                                             text: try outline.loadChapter(index).text), [], "chapter \(index)")
        }
    }

    func testAChapterWithNoTextOfItsOwnShowsItsTitle() throws {
        let outline = try makeCutBook()
        XCTAssertEqual(try outline.loadChapter(3).text, "Ghost")
        XCTAssertEqual(try outline.chapterMarkup(at: 3), ChapterMarkup(index: 3, html: #"<h1><span data-o="0">Ghost</span></h1>"#,
                                                                       resources: []))
        XCTAssertEqual(try outline.chapterMarkup(at: 2).html, """
            <section><h1><span data-o="0">Chapter Three</span></h1><p><span data-o="15">Third words.</span></p></section>
            """, "the part title merged into the chapter it stands over")
    }

    /// In a book kept in one file, what stands after a chapter's last words (its footnotes, a
    /// closing figure) sits at the same text offset as the next chapter's first words; it still
    /// belongs to the chapter it stands in.
    func testWhatEndsAChapterStaysWithItInAOneFileBook() throws {
        let outline = try book([Document(id: "c1", href: "c1.xhtml", body: """
            <section id="one"><h1>One</h1><p>Text one<sup>1</sup>.</p>
              <aside epub:type="footnote" id="n1"><p>Note one.</p></aside>
              <img src="fig.png" alt="end of one"/></section>
            <section id="two"><h1>Two</h1><p>Text two.</p>
              <aside epub:type="footnote" id="n2"><p>Note two.</p></aside></section>
            """)], toc: [("c1.xhtml#one", "One"), ("c1.xhtml#two", "Two")],
            extraManifest: #"<item id="fig" href="fig.png" media-type="image/png"/>"#,
            entries: [("OEBPS/fig.png", EPUBFixture.pngBytes)])
        let one = try outline.chapterMarkup(at: 0), two = try outline.chapterMarkup(at: 1)
        XCTAssertTrue(one.html.contains("Note one.") && one.html.contains("end of one"), one.html)
        XCTAssertEqual(one.resources, ["fig"])
        XCTAssertFalse(two.html.contains("Note one.") || two.html.contains("end of one"), two.html)
        XCTAssertTrue(two.html.hasPrefix(#"<section><h1><span data-o="0">Two</span></h1>"#), two.html)
        XCTAssertTrue(two.html.contains("Note two."), two.html)
        for index in 0..<2 {
            XCTAssertEqual(try ReadAlongMarkupCheck.problems(try outline.chapterMarkup(at: index),
                                                             text: try outline.loadChapter(index).text), [])
        }
    }

    func testABadIndexThrowsNoSuchChapter() throws {
        let outline = try makeCutBook()
        XCTAssertThrowsError(try outline.chapterMarkup(at: 4)) { error in
            XCTAssertEqual(error as? BookError, .noSuchChapter(file: outline.sourceURL, index: 4, count: 4))
        }
        XCTAssertThrowsError(try outline.chapterMarkup(at: -1))
    }

    // MARK: Plain text

    func testAPlainTextBookIsParagraphsAndHeadings() throws {
        let url = try directory.file("book.txt", """
            Chapter 1

            It was a *dark* night & the
            wind <howled>.

            Chapter 2

            More 𝔘 text.
            """)
        let outline = try BookReader.open(url)
        XCTAssertEqual(outline.chapters.map(\.title), ["Chapter 1", "Chapter 2"])
        let first = try outline.loadChapter(0)
        XCTAssertEqual(first.text, "Chapter 1\n\nIt was a *dark* night & the wind <howled>.")
        let markup = try outline.chapterMarkup(at: 0)
        XCTAssertEqual(markup.html, """
            <h2><span data-o="0">Chapter 1</span></h2>\
            <p><span data-o="11">It was a *dark* night &amp; the wind &lt;howled&gt;.</span></p>
            """)
        XCTAssertEqual(try ReadAlongMarkupCheck.problems(markup, text: first.text), [])
        XCTAssertEqual(try ReadAlongMarkupCheck.problems(try outline.chapterMarkup(at: 1),
                                                         text: try outline.loadChapter(1).text), [])
        XCTAssertThrowsError(try outline.resource(id: "cover")) { error in
            XCTAssertEqual(error as? BookError, .noSuchResource(file: outline.sourceURL, id: "cover"))
        }
    }

    func testAPlainTextFileChangedSinceOpeningIsRefusedNotMisplaced() throws {
        let url = try directory.file("story.txt", "Chapter 1\n\nOne two three.\n")
        let outline = try BookReader.open(url)
        try Data("Chapter 1\n\nFour five six seven.\n".utf8).write(to: url)
        XCTAssertThrowsError(try outline.chapterMarkup(at: 0)) { error in
            XCTAssertTrue("\(error)".contains("changed since it was opened"), "\(error)")
        }
    }
}
