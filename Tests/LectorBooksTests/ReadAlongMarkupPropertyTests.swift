import XCTest
import LectorBooks

/// The property that makes the read-along page's highlighting right, on every chapter of every
/// real book we have (`shared/fixtures`, Debian's live-manual in ten languages): each
/// `<span data-o="N">` holds exactly `Chapter.text`'s scalars N..<N+k, the spans are ordered and
/// cover every spoken character, and the fragment is well-formed and
/// allowlisted (`ReadAlongMarkupCheck`). A missing fixture fails under CI=true.
final class ReadAlongMarkupPropertyTests: XCTestCase {
    func assertHolds(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let outline = try BookReader.open(url)
        let problems = try ReadAlongMarkupCheck.problems(inEveryChapterOf: outline)
        XCTAssertEqual(problems.count, 0, problems.prefix(30).joined(separator: "\n"), file: file, line: line)
    }

    func testEveryChapterOfEverySharedFixture() throws {
        try RealFixtures.require(RealFixtures.wasteland)
        try RealFixtures.require(RealFixtures.childrensLiterature)
        let books = try FileManager.default.contentsOfDirectory(at: RealFixtures.directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "epub" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        XCTAssertGreaterThanOrEqual(books.count, 2)
        for book in books { try assertHolds(book) }
    }

    func testEveryChapterOfEveryLiveManual() throws {
        let books = try LiveManualTests.books()
        XCTAssertEqual(books.count, 10)
        for book in books { try assertHolds(book.url) }
    }

    /// A book in one XHTML file is read only as far as the next chapter's anchor at first (as for
    /// narration) and whole later: a chapter's markup is the same either way.
    func testMarkupIsTheSameFromPartOfADocumentAsFromAllOfIt() throws {
        for url in [RealFixtures.childrensLiterature, RealFixtures.wasteland] {
            try RealFixtures.require(url)
            let warm = try BookReader.open(url)
            for index in warm.chapters.indices {
                let fresh = try BookReader.open(url).chapterMarkup(at: index)
                XCTAssertEqual(try warm.chapterMarkup(at: index), fresh, "\(url.lastPathComponent) chapter \(index)")
            }
        }
    }

    /// The check itself can fail: a span holding other text than the chapter's at its offset, one
    /// overlapping another, spoken text in no span (a full stop too: Lector invents none), and a
    /// forbidden element or attribute.
    func testTheCheckCatchesWrongMarkup() throws {
        let text = "It was dark.\n\nThen light."
        func problems(_ html: String) throws -> [String] {
            try ReadAlongMarkupCheck.problems(ChapterMarkup(index: 0, html: html, resources: []), text: text)
        }
        XCTAssertEqual(try problems(#"<p><span data-o="0">It was dark.</span></p><p><span data-o="14">Then light.</span></p>"#), [])
        XCTAssertFalse(try problems(#"<p><span data-o="0">It was dark.</span></p><p><span data-o="14">Then light</span></p>"#).isEmpty)
        XCTAssertFalse(try problems(#"<p><span data-o="1">It was dark.</span></p><p><span data-o="14">Then light.</span></p>"#).isEmpty)
        XCTAssertFalse(try problems(#"<p><span data-o="0">It was dark.</span><span data-o="3">was</span></p><p><span data-o="14">Then light.</span></p>"#).isEmpty)
        XCTAssertFalse(try problems(#"<p><span data-o="0">It was dark.</span></p><p>Then <span data-o="19">light.</span></p>"#).isEmpty)
        XCTAssertFalse(try problems(#"<p id="x"><span data-o="0">It was dark.</span></p><p><span data-o="14">Then light.</span></p>"#).isEmpty)
        XCTAssertFalse(try problems(#"<script/><p><span data-o="0">It was dark.</span></p><p><span data-o="14">Then light.</span></p>"#).isEmpty)
        XCTAssertFalse(try problems(#"<p><span data-o="0">It was dark.</span></p><p><img src="http://x/y.png"/><span data-o="14">Then light.</span></p>"#).isEmpty)
    }
}
