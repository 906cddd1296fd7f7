import XCTest
import LectorBooks

/// Plain-text books: encodings (UTF-8 with and without a byte order mark, UTF-16, guessed
/// Windows-1252 / ISO-8859-1), chapter headings (`Chapter 1`, `CHAPTER II.` with a title line,
/// Markdown), contents lists, part headings, and long texts without headings split into parts.
final class PlainTextTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    static let story = """
        Chapter 1

        It was a dark and stormy night;
        the rain fell in torrents.

        CHAPTER II.
        The Morning After

        The sun rose over the
        wet hills.
        """

    func testUTF8WithByteOrderMark() throws {
        let url = try directory.file("story.txt", Data([0xEF, 0xBB, 0xBF]) + Data(Self.story.utf8))
        let outline = try BookReader.open(url)
        XCTAssertEqual(outline.textEncoding, .utf8WithByteOrderMark)
        XCTAssertEqual(outline.format, .plainText)
        let first = try outline.loadChapter(0)
        XCTAssertEqual(first.text, "Chapter 1\n\nIt was a dark and stormy night; the rain fell in torrents.")
    }

    func testChapterHeadingsSplitTheText() throws {
        let url = try directory.file("story.txt", Self.story)
        let outline = try BookReader.open(url)
        XCTAssertEqual(outline.textEncoding, .utf8)
        XCTAssertEqual(outline.title, "story", "no title heading: the file name")
        XCTAssertEqual(outline.authors, [])
        XCTAssertEqual(outline.chapters.map(\.title), ["Chapter 1", "CHAPTER II. The Morning After"])
        XCTAssertEqual(try outline.loadChapter(1).text, "CHAPTER II.\nThe Morning After\n\nThe sun rose over the wet hills.")
    }

    func testLatin1BytesAreDetected() throws {
        var bytes = Data("Chapter One\n\nA caf".utf8)
        bytes.append(0xE9)                                   // é in ISO-8859-1
        bytes.append(contentsOf: Array(" in Z".utf8))
        bytes.append(0xFC)                                   // ü
        bytes.append(contentsOf: Array("rich.".utf8))
        let url = try directory.file("latin1.txt", bytes)
        let outline = try BookReader.open(url)
        XCTAssertEqual(outline.textEncoding, .isoLatin1)
        XCTAssertTrue(outline.textEncoding?.isGuess ?? false)
        XCTAssertEqual(try outline.loadChapter(0).text, "Chapter One\n\nA café in Zürich.")
    }

    func testWindows1252CurlyQuotesAreDetected() throws {
        var bytes = Data([0x93])                             // “
        bytes.append(contentsOf: Array("Quite so,".utf8))
        bytes.append(0x94)                                   // ”
        bytes.append(contentsOf: Array(" he said ".utf8))
        bytes.append(0x96)                                   // –
        bytes.append(contentsOf: Array(" and left.".utf8))
        let url = try directory.file("cp1252.txt", bytes)
        let outline = try BookReader.open(url)
        XCTAssertEqual(outline.textEncoding, .windows1252)
        XCTAssertEqual(try outline.loadChapter(0).text, "“Quite so,” he said – and left.")
    }

    func testUTF16WithByteOrderMark() throws {
        let url = try directory.file("wide.txt", Data([0xFF, 0xFE]) + Self.story.data(using: .utf16LittleEndian)!)
        let outline = try BookReader.open(url)
        XCTAssertEqual(outline.textEncoding, .utf16LittleEndian)
        XCTAssertEqual(outline.chapters.count, 2)
        let big = try directory.file("wide-be.txt", Data([0xFE, 0xFF]) + Self.story.data(using: .utf16BigEndian)!)
        XCTAssertEqual(try BookReader.open(big).textEncoding, .utf16BigEndian)
    }

    func testMarkdownTitleThenChapterHeadings() throws {
        let url = try directory.file("novel.md", """
            # The Long Road

            ## Departure

            We left at dawn.

            ### A detour

            The bridge was out.

            ## Arrival

            We arrived at dusk.
            """)
        let outline = try BookReader.open(url)
        XCTAssertEqual(outline.title, "The Long Road")
        XCTAssertEqual(outline.chapters.map(\.title), ["Departure", "Arrival"])
        XCTAssertEqual(try outline.loadChapter(0).text,
                       "The Long Road\n\nDeparture\n\nWe left at dawn.\n\nA detour\n\nThe bridge was out.",
                       "the short title heading is read at the start of chapter 1; ### is text")
        XCTAssertEqual(try outline.loadChapter(1).text, "Arrival\n\nWe arrived at dusk.")
    }

    func testMarkdownTopLevelHeadingsAreChapters() throws {
        let url = try directory.file("notes.md", "# One\n\nFirst.\n\n# Two\n\nSecond.\n")
        let outline = try BookReader.open(url)
        XCTAssertEqual(outline.title, "notes")
        XCTAssertEqual(outline.chapters.map(\.title), ["One", "Two"])
    }

    /// Gutenberg-style: a preamble long enough to be a chapter, a contents list naming every
    /// chapter, a part heading directly followed by a chapter heading.
    func testContentsListsPartsAndPreamble() throws {
        let url = try directory.file("gutenberg.txt", """
            The Project Gutenberg eBook of A Sample Story, by Nobody in Particular. This eBook is
            for the use of anyone anywhere at no cost and with almost no restrictions whatsoever.

            Contents

            Chapter I

            Chapter II

            PART ONE

            Chapter I

            Once upon a time.

            Chapter II

            Happily ever after.
            """)
        let outline = try BookReader.open(url)
        XCTAssertEqual(outline.chapters.map(\.title), [
            "The Project Gutenberg eBook of A Sample Story, by Nobody in…", "PART ONE — Chapter I", "Chapter II",
        ])
        XCTAssertTrue(try outline.loadChapter(0).text.hasSuffix("Contents\n\nChapter I\n\nChapter II"))
        XCTAssertEqual(try outline.loadChapter(1).text, "PART ONE\n\nChapter I\n\nOnce upon a time.")
    }

    func testSentencesMentioningChaptersAreNotHeadings() throws {
        let url = try directory.file("essay.txt", """
            Book 2 of the series was better than the first.

            Part of the reason was the pacing, which in chapter 3 picks up considerably.
            """)
        let outline = try BookReader.open(url)
        XCTAssertEqual(outline.chapters.map(\.title), ["essay"])
    }

    func testNoHeadingsIsOneChapterTitledLikeTheBook() throws {
        let url = try directory.file("Short Story.txt", "Just one paragraph\nover two lines.\n\nAnd another.")
        let outline = try BookReader.open(url)
        XCTAssertEqual(outline.title, "Short Story")
        XCTAssertEqual(outline.chapters.map(\.title), ["Short Story"])
        XCTAssertEqual(try outline.loadChapter(0).text, "Just one paragraph over two lines.\n\nAnd another.")
    }

    func testLongTextWithoutHeadingsIsSplitIntoPartsAtParagraphEnds() throws {
        let paragraph = Array(repeating: "word", count: 99).joined(separator: " ") + " end."
        let text = Array(repeating: paragraph, count: 160).joined(separator: "\n\n")   // 16,000 words
        let url = try directory.file("long.txt", text)
        let book = try Book.load(url)
        XCTAssertEqual(book.chapters.map(\.title), ["Part 1", "Part 2", "Part 3"])
        XCTAssertEqual(book.chapters.map { $0.text.split(whereSeparator: \.isWhitespace).count }, [5000, 5000, 6000])
        for chapter in book.chapters {
            XCTAssertTrue(chapter.text.hasPrefix("word word"))
            XCTAssertTrue(chapter.text.hasSuffix("end."))
        }
    }

    func testWindowsLineEndings() throws {
        let url = try directory.file("crlf.txt", "Chapter 1\r\n\r\nLine one\r\nline two.\r\n")
        XCTAssertEqual(try Book.load(url).chapters[0].text, "Chapter 1\n\nLine one line two.")
    }
}
