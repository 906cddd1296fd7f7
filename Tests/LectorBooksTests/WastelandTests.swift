import XCTest
import LectorBooks

/// The W3C sample `wasteland.epub`: the whole poem in one XHTML file, its five parts and the
/// notes reached through nav anchors (`#ch1` … `#ch5`, `#rearnotes`), a JPEG cover, and note
/// references (`<a epub:type="noteref">*</a>`) after many lines.
final class WastelandTests: XCTestCase {
    static let url = RealFixtures.wasteland

    override func setUpWithError() throws { try RealFixtures.require(Self.url) }

    static let parts: [(title: String, firstLine: String)] = [
        ("I. THE BURIAL OF THE DEAD", "April is the cruellest month, breeding"),
        ("II. A GAME OF CHESS", "The Chair she sat in, like a burnished throne,"),
        ("III. THE FIRE SERMON", "The river's tent is broken: the last fingers of leaf"),
        ("IV. DEATH BY WATER", "Phlebas the Phoenician, a fortnight dead,"),
        ("V. WHAT THE THUNDER SAID", "After the torchlight red on sweaty faces"),
    ]

    func testCoverIsTheJPEG() throws {
        let cover = try XCTUnwrap(BookReader.open(Self.url).loadCover())
        XCTAssertEqual(cover.mediaType, "image/jpeg")
        XCTAssertEqual(cover.fileExtension, "jpg")
        XCTAssertEqual(Array(cover.data.prefix(3)), [0xFF, 0xD8, 0xFF])
    }

    func testMetadata() throws {
        let outline = try BookReader.open(Self.url)
        XCTAssertEqual(outline.title, "The Waste Land")
        XCTAssertEqual(outline.authors, ["T.S. Eliot"])
        XCTAssertEqual(outline.language, "en-US")
        XCTAssertEqual(outline.identity, "code.google.com.epub-samples.wasteland-basic")
    }

    /// The title page with its epigraph and dedication comes before the first nav anchor and is
    /// long enough to be a chapter of its own; then the five parts; then the notes.
    func testChaptersAreThePartsSplitByAnchorsInOneFile() throws {
        let outline = try BookReader.open(Self.url)
        XCTAssertEqual(outline.chapters.map(\.title),
                       ["The Waste Land"] + Self.parts.map(\.title) + ["NOTES ON \"THE WASTE LAND\""])
    }

    func testEachPartStartsWithItsFirstLineAndStopsBeforeTheNextPart() throws {
        let book = try Book.load(Self.url)
        for (offset, part) in Self.parts.enumerated() {
            let chapter = book.chapters[offset + 1]
            XCTAssertTrue(chapter.text.hasPrefix(part.title + "\n\n" + part.firstLine),
                          "\(part.title) starts with: \(chapter.text.prefix(80))")
            if offset + 1 < Self.parts.count {
                let next = Self.parts[offset + 1]
                XCTAssertFalse(chapter.text.contains(next.firstLine), "\(part.title) leaks into \(next.title)")
                XCTAssertFalse(chapter.text.contains(next.title))
            }
        }
        XCTAssertTrue(book.chapters[5].text.hasSuffix("Shantih shantih shantih\n\nNote: 434. Shantih. Repeated as here, "
            + "a formal ending to an Upanishad. 'The Peace which passeth understanding' is a feeble translation of the content of this word."))
    }

    func testTitlePageChapterHoldsTheEpigraphAndDedication() throws {
        let chapter = try BookReader.open(Self.url).loadChapter(0)
        XCTAssertTrue(chapter.text.hasPrefix("The Waste Land\n\nT.S. Eliot\n\n\"Nam Sibyllam quidem Cumis"))
        XCTAssertTrue(chapter.text.hasSuffix("For Ezra Pound: il miglior fabbro"))
        XCTAssertFalse(chapter.text.contains("April"))
    }

    /// The poem's rear notes are read after the stanza that refers to them (each once), from
    /// the notes section at the end of the one file, which a chapter parsed only as far as the
    /// next part's anchor has not reached yet.
    func testNoteMarkersAndLineNumbersAreNotReadAndNotesFollowTheirStanza() throws {
        let book = try Book.load(Self.url)
        let poem = book.chapters[1...5].map(\.text).joined(separator: "\n")
        XCTAssertFalse(poem.contains("*"), "noteref markers")
        XCTAssertTrue(poem.contains("Out of this stony rubbish? Son of man,\n"))
        XCTAssertTrue(poem.contains("And went on in sunlight, into the Hofgarten,\n"), "the lnum 10 is not read")
        XCTAssertTrue(book.chapters[1].text.contains("""
            I will show you fear in a handful of dust.

            Note: Line 20. Cf. Ezekiel 2:1.

            Note: 23. Cf. Ecclesiastes 12:5.

            Frisch weht der Wind
            """))
        XCTAssertEqual(poem.components(separatedBy: "Note: ").count - 1, 50, "all 50 notes, each once")
        let first = try BookReader.open(Self.url).loadChapter(1)
        XCTAssertEqual(first.text, book.chapters[1].text, "the same from a fresh outline")
    }

    /// The notes section is skipped inside the poem but is what the last nav entry points at,
    /// so it is a chapter: its heading, Eliot's introduction and the part headings are read
    /// there, each note only after the line that refers to it (issue 23: they were read twice,
    /// 1,548 words in this chapter); the page still shows every note.
    func testTheNotesChapterReadsWhatNoLineReads() throws {
        let outline = try BookReader.open(Self.url)
        let notes = try outline.loadChapter(6)
        XCTAssertTrue(notes.text.hasPrefix("NOTES ON \"THE WASTE LAND\"\n\nNot only the title"))
        XCTAssertTrue(notes.text.contains("I. THE BURIAL OF THE DEAD"))
        XCTAssertFalse(notes.text.contains("Cf. Ezekiel 2:1."))
        let words = notes.text.split(whereSeparator: \.isWhitespace).count
        XCTAssertLessThan(words, 400, notes.text)
        let markup = try outline.chapterMarkup(at: 6)
        XCTAssertTrue(markup.html.contains("Cf. Ezekiel 2:1."))
        XCTAssertTrue(markup.html.contains("What Tiresias sees, in fact, is the substance of the poem."))
        XCTAssertEqual(try ReadAlongMarkupCheck.problems(markup, text: notes.text), [])
    }

    /// The Tiresias note is heard once in the whole book: after its line in "III. THE FIRE SERMON".
    func testEachNoteIsReadOnceInTheWholeBook() throws {
        let book = try Book.load(Self.url)
        let tiresias = "What Tiresias sees, in fact, is the substance of the poem."
        XCTAssertEqual(book.chapters.map { $0.text.components(separatedBy: tiresias).count - 1 }, [0, 0, 0, 1, 0, 0, 0])
        let all = book.chapters.map(\.text).joined(separator: "\n")
        XCTAssertEqual(all.components(separatedBy: "Cf. Ezekiel 2:1.").count - 1, 1)
    }
}
