import XCTest
import LectorBooks

/// The W3C sample `childrens-literature.epub`: two titles (main and subtitle), two creators, a
/// PNG `cover-image`, and a nav whose nested entries (four stories inside "A FOUR-LEAVED CLOVER",
/// grouped under author names that are not links) all point into one XHTML file.
final class ChildrensLiteratureTests: XCTestCase {
    static let url = RealFixtures.childrensLiterature

    override func setUpWithError() throws { try RealFixtures.require(Self.url) }

    func testMetadataIsTheMainTitleAndBothAuthorsInOrder() throws {
        let outline = try BookReader.open(Self.url)
        XCTAssertEqual(outline.title, "Children's Literature")
        XCTAssertEqual(outline.authors, ["Charles Madison Curry", "Erle Elsworth Clippinger"])
        XCTAssertEqual(outline.language, "en")
        XCTAssertEqual(outline.format, .epub3)
        XCTAssertEqual(outline.identity, "http://www.gutenberg.org/ebooks/25545")
    }

    func testCoverIsThePNGImage() throws {
        let outline = try BookReader.open(Self.url)
        XCTAssertTrue(outline.hasCover)
        let cover = try XCTUnwrap(outline.loadCover())
        XCTAssertEqual(cover.mediaType, "image/png")
        XCTAssertEqual(cover.fileExtension, "png")
        XCTAssertEqual(Array(cover.data.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        XCTAssertEqual(cover.data.count, 41_134)
    }

    func testChaptersAreTheNavEntriesInOrderIncludingNestedOnes() throws {
        let outline = try BookReader.open(Self.url)
        XCTAssertEqual(outline.chapters.map(\.title), [
            "SECTION IV FAIRY STORIES—MODERN FANTASTIC TALES — BIBLIOGRAPHY", "INTRODUCTORY",
            "190 A FOUR-LEAVED CLOVER", "I. The Rabbi and the Diadem", "II. Friendship", "III. True Charity",
            "IV. An Eastern Garden", "191 THE LORD HELPETH MAN AND BEAST", "192 THE REAL PRINCESS",
            "193 THE EMPEROR'S NEW CLOTHES", "194 THE NIGHTINGALE", "195 THE FIR TREE", "196 THE TINDER-BOX",
            "197 THE HARDY TIN SOLDIER", "198 THE UGLY DUCKLING", "199 THE STORY OF FAIRYFOOT",
            "200 THE HAPPY PRINCE", "201 THE KNIGHTS OF THE SILVER SHIELD", "202 THE PRINCE'S DREAM",
            "203 OLD PIPES AND THE DRYAD", "204 THE KING OF THE GOLDEN RIVER OR THE BLACK BROTHERS",
        ])
        XCTAssertEqual(outline.chapters.map(\.depth).prefix(8), [0, 1, 1, 2, 2, 2, 2, 1])
        XCTAssertEqual(outline.chapters.map(\.index), Array(0..<21))
        XCTAssertTrue(outline.warnings.contains("1 chapter holding only a title (e.g. \"SECTION IV FAIRY STORIES—MODERN "
                                                + "FANTASTIC TALES\") read at the start of the next one"), "\(outline.warnings)")
    }

    func testEachChapterStartsWithItsOwnHeadingAndStopsBeforeTheNext() throws {
        let book = try Book.load(Self.url)
        XCTAssertEqual(book.chapters.count, 21)
        let chapters = book.chapters
        XCTAssertTrue(chapters[0].text.hasPrefix("SECTION IV FAIRY STORIES—MODERN FANTASTIC TALES\n\n"
                                                 + "BIBLIOGRAPHY\n\nAlden, Raymond Macdonald, Why the Chimes Rang"),
                      "the section's title page is read at the start of its first chapter")
        XCTAssertTrue(chapters[1].text.hasPrefix("INTRODUCTORY\n\nThe difficulties of classification are very apparent here"))
        XCTAssertTrue(chapters[2].text.hasPrefix("190\n\nThe rabbis of old were good story-tellers."))
        XCTAssertTrue(chapters[2].text.hasSuffix("A FOUR-LEAVED CLOVER\n\nABRAM S. ISAACS"))
        XCTAssertTrue(chapters[3].text.hasPrefix("1. The Rabbi and The Diadem\n\nGreat was the alarm in the palace of Rome"))
        XCTAssertFalse(chapters[3].text.contains("A certain father was doubly blessed"))
        XCTAssertTrue(chapters[4].text.hasPrefix("2. Friendship\n\nA certain father was doubly blessed"))
        XCTAssertTrue(chapters[20].text.hasPrefix("204\n\nJohn Ruskin (1819-1900)"))
        for (index, chapter) in chapters.enumerated() {
            XCTAssertEqual(chapter.index, index)
            XCTAssertFalse(chapter.sourceMap.isEmpty, "chapter \(index) has text of its own")
        }
    }

    func testScriptsStylesAndPageNumbersAreNotReadAndAnnotationsFollowTheirParagraph() throws {
        let book = try Book.load(Self.url)
        let all = book.chapters.map(\.text).joined(separator: "\n")
        XCTAssertFalse(all.contains("getElementsByTagName"), "the nav's script")
        XCTAssertFalse(all.contains("THE CONTENTS"), "the nav document is not a chapter")
        XCTAssertFalse(all.contains("\n\n169\n"), "epub:type=pagebreak")
        XCTAssertFalse(all.range(of: #"(^|\s)17[0-9](\s|$)"#, options: .regularExpression) != nil,
                       "no stray page numbers")
        // The annoref link around a real word is read, and its annotation after the paragraph.
        let chapter = book.chapters[9].text
        XCTAssertTrue(chapter.contains("\"The Emperor's New Clothes\" came into being"))
        XCTAssertTrue(chapter.contains("to hold up the procession!\n\nNote: Transcriber's Note: original reads 'Emporer's'\n\nTHE EMPEROR'S NEW CLOTHES"),
                      "epub:type=annotation asides are read once, after the paragraph")
        XCTAssertEqual(all.components(separatedBy: "Transcriber's Note").count - 1, 3)
    }

    func testWhitespaceIsCollapsedAndParagraphsSeparatedByABlankLine() throws {
        let chapter = try BookReader.open(Self.url).loadChapter(1)
        XCTAssertFalse(chapter.text.contains("  "))
        XCTAssertFalse(chapter.text.contains("\t"))
        XCTAssertFalse(chapter.text.contains("\n\n\n"))
        XCTAssertTrue(chapter.text.contains("served by the arrangement adopted. The modern fanciful story"))
    }
}
