import LectorBooks
import XCTest

/// Images as real books mark them up: an image that carries content is read ("Image: " and its
/// `alt`, a figure's caption once, an `aria-describedby` description), a decorative one is not,
/// an image inside a line of text is read as a word of it.
final class ImageTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory?.remove() }

    func text(_ body: String, options: BookReadingOptions = .default) throws -> String {
        try PatternBook(directory).text(body, options: options)
    }

    func testAnImageOfItsOwnIsReadAsAnImage() throws {
        XCTAssertEqual(try text("""
            <p>Before.</p>
            <p><img src="map.png" alt="A map of the island, the wreck marked with a cross"/></p>
            <div class="illustration"><img src="a.png" alt="The harbour at dawn."/></div>
            <p>After.</p>
            """), """
            Before.

            Image: A map of the island, the wreck marked with a cross

            Image: The harbour at dawn.

            After.
            """)
    }

    /// `alt=""`, `role="presentation"`, `aria-hidden`, or no text alternative at all: nothing.
    func testDecorativeImagesAreNotRead() throws {
        XCTAssertEqual(try text("""
            <p>One.</p><p><img src="rule.png" alt=""/></p><img src="orn.png" role="presentation" alt="ornament"/>
            <img src="x.png" aria-hidden="true" alt="hidden"/><p><img src="photo.jpg"/></p><p>Two.</p>
            """), "One.\n\nTwo.")
    }

    /// A figure's caption is read where it stands and the image's `alt` after it, unless the
    /// caption already says it (authors often repeat it).
    func testFiguresReadTheirCaptionAndAltOnce() throws {
        XCTAssertEqual(try text("""
            <figure><img src="f1.png" alt="Figure 1: the water cycle"/><figcaption>Figure 1: The water cycle.</figcaption></figure>
            <figure><img src="f2.png" alt="Arrows from the sea to the clouds and back"/>
              <figcaption>Figure 2. Evaporation.</figcaption></figure>
            <figure><img src="f3.png" alt="A lone tree"/></figure>
            """), """
            Figure 1: The water cycle.

            Figure 2. Evaporation.

            Image: Arrows from the sea to the clouds and back

            Image: A lone tree
            """)
    }

    /// An image inside a line of text is a word of it: a drop cap, an icon.
    func testInlineImagesAreWordsOfTheirLine() throws {
        XCTAssertEqual(try text("""
            <p><img src="t.png" alt="T" class="dropcap"/>he king was in his counting-house.</p>
            <p>Press <img src="play.png" alt="play"/> to start.</p>
            """), "The king was in his counting-house.\n\nPress play to start.")
    }

    /// `aria-describedby` naming a hidden description: read after the alternative. Naming text
    /// that is read anyway (the caption): not read twice.
    func testDescriptionsNamedByAriaDescribedBy() throws {
        XCTAssertEqual(try text("""
            <p id="d1" hidden="hidden">Three bars: 10, 20 and 35 percent.</p>
            <p><img src="chart.png" alt="Bar chart of growth" aria-describedby="d1"/></p>
            <figure><img src="p.png" alt="Portrait" aria-describedby="c2"/><figcaption id="c2">Ada, 1840.</figcaption></figure>
            """), """
            Image: Bar chart of growth
            Three bars: 10, 20 and 35 percent.

            Ada, 1840.

            Image: Portrait
            """)
    }

    /// The cover is shown by media controls: its page's "Cover" is not read.
    func testTheCoverImageIsNotRead() throws {
        var book = PatternBook(directory)
        book.extraManifest = #"<item id="cover" href="images/cover.jpg" media-type="image/jpeg" properties="cover-image"/>"#
        book.entries = [("OEBPS/images/cover.jpg", EPUBFixture.jpegBytes)]
        let outline = try book.open([("cover", #"<div><img src="images/cover.jpg" alt="Cover"/></div>"#),
                                     ("c1", "<p>Once upon a time.</p>")])
        XCTAssertEqual(outline.chapters.map(\.title), ["c1"], "the cover page has nothing to read")
        XCTAssertEqual(try outline.loadChapter(0).text, "Once upon a time.")
    }

    /// A book of pictures with text alternatives is readable.
    func testABookOfPicturesIsNotEmpty() throws {
        XCTAssertEqual(try text(#"<div><img src="x.png" alt="A picture"/></div>"#), "Image: A picture")
    }

    func testImagesAreNotReadWhenTurnedOff() throws {
        XCTAssertEqual(try text(#"<p>A.</p><p><img src="m.png" alt="A map"/></p><p>B<img src="i.png" alt="icon"/>.</p>"#,
                                options: BookReadingOptions(images: .skip)), "A.\n\nB.")
    }

    /// The read-along page shows the image and tags the words of its description (so they are
    /// highlighted when heard); the label is not tagged.
    func testTheDescriptionIsTaggedOnTheReadAlongPage() throws {
        var book = PatternBook(directory)
        book.extraManifest = #"<item id="map" href="map.png" media-type="image/png"/>"#
        book.entries = [("OEBPS/map.png", EPUBFixture.pngBytes)]
        let outline = try book.open([("c1", """
            <p>Before.</p><p><img src="map.png" alt="A map"/></p><p><img src="t.png" alt="T"/>he end.</p>
            """)])
        let text = try outline.loadChapter(0).text
        XCTAssertEqual(text, "Before.\n\nImage: A map\n\nThe end.")
        let markup = try outline.chapterMarkup(at: 0)
        XCTAssertEqual(try ReadAlongMarkupCheck.problems(markup, text: text), [], markup.html)
        XCTAssertTrue(markup.html.contains(#"<p><img alt="A map" src="resource/map"/><span data-o="16">A map</span></p>"#),
                      markup.html)
        XCTAssertFalse(markup.html.contains("Image:"))
    }
}
