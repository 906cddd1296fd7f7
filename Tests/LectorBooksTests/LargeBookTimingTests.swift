import XCTest
import LectorBooks

/// How long a large book takes to open and to start playing, printed rather than asserted
/// (machines differ). The daemon shows the track list and plays chapter 1 after `open` +
/// `loadChapter(0)`; `loadBook` is the cost it avoids paying up front.
///
/// Two shapes of the same ~1.6 MB of text in 120 chapters: one XHTML file per chapter (the
/// common case: only chapter 1's file is parsed), and every chapter in one XHTML file reached by
/// anchors (the outline parses the file only up to chapter 1's anchor, chapter 1 only up to
/// chapter 2's; the third request parses it whole, once, and the rest comes from the cache).
///
/// Measured on the 2-core Debian 12 build machine, Swift 6.3, 1.61 M characters:
///
///     build    shape           open    first chapter   open + first   whole book
///     debug    120 files       10 ms        4 ms           14 ms         446 ms
///     debug    one file        39 ms       34 ms           73 ms         512 ms
///     release  120 files      4.4 ms      2.3 ms          6.7 ms         271 ms
///     release  one file        13 ms       11 ms           24 ms         301 ms
final class LargeBookTimingTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    static let chapterCount = 120
    static let paragraphsPerChapter = 26

    static func paragraph(_ chapter: Int, _ index: Int) -> String {
        let words = ["river", "lantern", "quietly", "harbour", "morning", "stone", "letters", "across", "the", "and"]
        let sentence = (0..<12).map { words[($0 * 7 + index + chapter) % words.count] }.joined(separator: " ")
        return "<p>Paragraph \(index + 1) of chapter \(chapter + 1): "
            + Array(repeating: sentence.prefix(1).uppercased() + sentence.dropFirst() + ".", count: 6)
                .joined(separator: " ") + "</p>"
    }

    static func chapterBody(_ chapter: Int) -> String {
        "<section id=\"c\(chapter + 1)\"><h2>Chapter \(chapter + 1)</h2>\n"
            + (0..<paragraphsPerChapter).map { paragraph(chapter, $0) }.joined(separator: "\n") + "</section>"
    }

    func makeBook(singleFile: Bool) throws -> URL {
        let navItems = (0..<Self.chapterCount).map { index in
            let href = singleFile ? "book.xhtml#c\(index + 1)" : "c\(index + 1).xhtml"
            return "<li><a href=\"\(href)\">Chapter \(index + 1)</a></li>"
        }.joined(separator: "\n")
        let documents = singleFile ? [("book", "book.xhtml")]
                                   : (0..<Self.chapterCount).map { ("c\($0 + 1)", "c\($0 + 1).xhtml") }
        var fixture = EPUBFixture.standard(opf: EPUBFixture.opf3(
            documents: documents,
            extraManifest: #"<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>"#))
            .adding("OEBPS/nav.xhtml", EPUBFixture.xhtml(body: "<nav epub:type=\"toc\"><ol>\(navItems)</ol></nav>"))
        if singleFile {
            let body = (0..<Self.chapterCount).map(Self.chapterBody).joined(separator: "\n")
            fixture = fixture.adding("OEBPS/book.xhtml", EPUBFixture.xhtml(body: body))
        } else {
            for index in 0..<Self.chapterCount {
                fixture = fixture.adding("OEBPS/c\(index + 1).xhtml", EPUBFixture.xhtml(body: Self.chapterBody(index)))
            }
        }
        return try fixture.write(in: directory.url, name: singleFile ? "large-single.epub" : "large.epub")
    }

    func measure(singleFile: Bool) throws {
        let url = try makeBook(singleFile: singleFile)
        let clock = ContinuousClock()
        var outline: BookOutline!
        let open = try clock.measure { outline = try BookReader.open(url) }
        var first: Chapter!
        let firstChapter = try clock.measure { first = try outline.loadChapter(0) }
        var book: Book!
        let whole = try clock.measure { book = try Book.load(url) }
        let characters = book.chapters.reduce(0) { $0 + $1.text.unicodeScalars.count }

        XCTAssertEqual(outline.chapters.count, Self.chapterCount)
        XCTAssertTrue(first.text.hasPrefix("Chapter 1\n\nParagraph 1 of chapter 1: "))
        XCTAssertTrue(book.chapters[119].text.hasPrefix("Chapter 120\n\nParagraph 1 of chapter 120: "))
        XCTAssertGreaterThan(characters, 1_500_000)
        print("""
            LectorBooks large book (\(singleFile ? "one XHTML file, 120 anchors" : "120 XHTML files")), \
            \(characters) characters, \(book.chapters.count) chapters: open outline \(Self.ms(open)), \
            first chapter \(Self.ms(firstChapter)), open + first \(Self.ms(open + firstChapter)), \
            whole book \(Self.ms(whole))
            """)
    }

    static func ms(_ duration: Duration) -> String {
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return String(format: "%.1f ms", milliseconds)
    }

    func testOneFilePerChapter() throws { try measure(singleFile: false) }

    func testAllChaptersInOneFile() throws { try measure(singleFile: true) }
}
