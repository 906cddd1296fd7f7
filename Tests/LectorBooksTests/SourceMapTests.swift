import XCTest
import LectorBooks

/// A chapter's `sourceMap` points back into its documents: the text under each span is exactly
/// the document text at the span's `documentOffset`, so a reader UI can highlight what is heard.
final class SourceMapTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        try RealFixtures.require(RealFixtures.wasteland)
        try RealFixtures.require(RealFixtures.childrensLiterature)
        directory = try TemporaryDirectory()
    }
    override func tearDown() { directory?.remove() }

    /// Checks every span of every chapter against `outline.documentText`, and that spans are in
    /// order, inside the text, and not overlapping.
    func assertRoundTrips(_ outline: BookOutline, file: StaticString = #filePath, line: UInt = #line) throws {
        var documents: [String: [Unicode.Scalar]] = [:]
        for entry in outline.chapters {
            let chapter = try outline.loadChapter(entry.index)
            let count = chapter.text.unicodeScalars.count
            var previousEnd = 0
            for span in chapter.sourceMap {
                XCTAssertGreaterThanOrEqual(span.textRange.lowerBound, previousEnd, file: file, line: line)
                XCTAssertLessThanOrEqual(span.textRange.upperBound, count, file: file, line: line)
                XCTAssertFalse(span.textRange.isEmpty, file: file, line: line)
                previousEnd = span.textRange.upperBound
                if documents[span.documentPath] == nil {
                    documents[span.documentPath] = Array(try outline.documentText(span.documentPath).unicodeScalars)
                }
                let document = documents[span.documentPath]!
                let slice = document[span.documentOffset..<(span.documentOffset + span.length)]
                XCTAssertEqual(chapter.text(of: span), Self.string(slice),
                               "chapter \(entry.index) span at \(span.textRange)", file: file, line: line)
            }
            XCTAssertEqual(chapter.sourceMap.first?.textRange.lowerBound, 0, file: file, line: line)
            XCTAssertEqual(chapter.sourceMap.last?.textRange.upperBound, count, file: file, line: line)
        }
    }

    static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    func testWastelandRoundTrips() throws {
        try assertRoundTrips(try BookReader.open(WastelandTests.url))
    }

    func testChildrensLiteratureRoundTrips() throws {
        try assertRoundTrips(try BookReader.open(ChildrensLiteratureTests.url))
    }

    func testSpansNameTheElementAnchorAndLine() throws {
        let chapter = try BookReader.open(WastelandTests.url).loadChapter(1)
        let heading = try XCTUnwrap(chapter.sourceMap.first)
        XCTAssertEqual(chapter.text(of: heading), "I. THE BURIAL OF THE DEAD")
        XCTAssertEqual(heading.documentPath, "EPUB/wasteland-content.xhtml")
        XCTAssertEqual(heading.anchor, "ch1")
        XCTAssertEqual(heading.elementPath, "/html/body[1]/section[2]/section[1]/h2[1]")
        XCTAssertEqual(heading.sourceLine, 30)
        let firstLine = chapter.sourceMap[1]
        XCTAssertEqual(chapter.text(of: firstLine), "April is the cruellest month, breeding")
        XCTAssertEqual(firstLine.elementPath, "/html/body[1]/section[2]/section[1]/div[1]/div[1]")
        XCTAssertEqual(firstLine.sourceLine, 32)
        let noted = try XCTUnwrap(chapter.sourceMap.first { chapter.text(of: $0).hasPrefix("Out of this stony rubbish") })
        XCTAssertEqual(noted.anchor, "ln20", "the nearest id at or before the span")
    }

    func testAChapterSpanningTwoDocumentsMapsIntoBoth() throws {
        let url = try GeneratedEPUB2Tests.makeBook(in: directory)
        let outline = try BookReader.open(url)
        let chapter = try outline.loadChapter(0)
        XCTAssertEqual(Set(chapter.sourceMap.map(\.documentPath)), ["OEBPS/Text/title.xhtml", "OEBPS/Text/chapter 1.xhtml"])
        try assertRoundTrips(outline)
    }

    func testPlainTextRoundTripsWithLineNumbers() throws {
        let url = try directory.file("story.txt", PlainTextTests.story)
        let outline = try BookReader.open(url)
        try assertRoundTrips(outline)
        let second = try outline.loadChapter(1)
        XCTAssertEqual(second.sourceMap.map(\.documentPath), ["story.txt", "story.txt", "story.txt"])
        XCTAssertEqual(second.sourceMap.map(\.sourceLine), [6, 7, 9])
        XCTAssertEqual(second.text(of: second.sourceMap[2]), "The sun rose over the wet hills.")
        XCTAssertNil(second.sourceMap[2].elementPath)
    }

    func testUnknownDocumentPathIsAMissingResource() throws {
        let url = try directory.file("story.txt", PlainTextTests.story)
        XCTAssertThrowsError(try BookReader.open(url).documentText("other.txt")) { error in
            XCTAssertEqual(error as? BookError, .missingResource(file: url, path: "other.txt"))
        }
    }
}
