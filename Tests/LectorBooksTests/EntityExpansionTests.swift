import XCTest
import LectorBooks
import LectorTestKit
import LectorXML

/// Entity attacks (issue 21) in every XML document a book has: each expanding form is refused by
/// name, never read leniently, and an external entity never reads its file. libxml2 2.9 re-parses
/// an entity's text at every reference in SAX mode, so before the guard a billion laughs in the
/// OPF took 129 s and 300 MB. Elapsed time is printed, not asserted.
final class EntityExpansionTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    /// What opening the book and reading its chapter gave: the error, or the chapter.
    func read(_ book: HostileEntityBook) throws -> Result<Chapter, BookError> {
        let url = directory.url.appendingPathComponent("\(book.attack.rawValue)-\(book.document.rawValue).epub")
        try book.write(to: url)
        let start = ContinuousClock.now
        defer { print("entity attack \(book.attack.rawValue) in \(book.document.rawValue): \(ContinuousClock.now - start)") }
        do throws(BookError) {
            return .success(try BookReader.open(url).loadChapter(0))
        } catch {
            return .failure(error)
        }
    }

    /// The refusal for an expanding form: past the budget of the document that carries it.
    static func tooMuch(_ book: HostileEntityBook) -> String {
        let entry = book.writer().entries.first { $0.path == book.document.path }!
        return XMLRefusal.entityExpansion(limit: XMLReader.entityBudget(documentSize: entry.data.count)).reason
    }

    func testEveryExpandingFormIsRefusedByNameInEveryDocument() throws {
        for attack in EntityAttack.allCases where attack.mustBeRefused {
            for document in HostileEntityBook.Document.allCases {
                let book = HostileEntityBook(attack: attack, in: document)
                let label = "\(attack.rawValue) in \(document.rawValue)"
                switch try read(book) {
                case .success(let chapter):
                    // A broken lexicon costs its words only; the book reads, and says why.
                    XCTAssertEqual(document, .lexicon, "\(label) was read: \(chapter.text.prefix(200))")
                    XCTAssertTrue(chapter.text.hasSuffix(HostileEntityBook.chapterText), "\(label): \(chapter.text)")
                    let refusal = attack == .loop ? XMLRefusal.entityLoop.reason : Self.tooMuch(book)
                    XCTAssertTrue(chapter.warnings.contains { $0.contains("lexicon.pls") && $0.contains(refusal) },
                                  "\(label): \(chapter.warnings)")
                case .failure(let error):
                    XCTAssertNotEqual(document, .lexicon, "\(label): \(error)")
                    guard case .refusedXML(_, let path, let reason) = error else {
                        XCTFail("\(label): not refused for its entities: \(error)")
                        continue
                    }
                    XCTAssertEqual(path, document.path, label)
                    XCTAssertEqual(reason, attack == .loop ? XMLRefusal.entityLoop.reason : Self.tooMuch(book), label)
                    XCTAssertTrue(error.description.contains(document.path), error.description)
                }
            }
        }
    }

    func testAnExternalEntityNeverReadsItsFile() throws {
        let secret = directory.url.appendingPathComponent("secret.txt")
        try Data("SECRET-FILE-CONTENT".utf8).write(to: secret)
        for document in HostileEntityBook.Document.allCases {
            let book = HostileEntityBook(attack: .externalEntity, in: document, file: secret.path)
            switch try read(book) {
            case .success(let chapter):
                XCTAssertFalse(chapter.text.contains("SECRET"), "\(document): \(chapter.text)")
                XCTAssertTrue(chapter.text.contains(HostileEntityBook.chapterText), "\(document): \(chapter.text)")
            case .failure(let error):
                // An unknown entity where the document must be well-formed: named, not read.
                XCTAssertFalse(error.description.contains("SECRET"), error.description)
                guard case .brokenXML(_, let path, _, _) = error else { return XCTFail("\(document): \(error)") }
                XCTAssertEqual(path, document.path)
            }
        }
    }

    /// EPUB 2 books use XHTML's named entities through the XHTML 1.1 DTD (never loaded): they
    /// still read, as do the predefined ones and a small entity of the book's own.
    func testNamedAndSmallEntitiesStillRead() throws {
        let chapter = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd" [
            <!ENTITY author "Herman Melville">]>
            <html xmlns="http://www.w3.org/1999/xhtml"><head><title>C</title></head>
            <body><p>Call&nbsp;me Ishmael&mdash;so wrote &author; &amp; &lt;nobody&gt; else&hellip;</p></body></html>
            """
        let url = try EPUBFixture.standard(opf: EPUBFixture.opf3(documents: [("c1", "c1.xhtml")]))
            .adding("OEBPS/c1.xhtml", chapter)
            .write(in: directory.url, name: "named.epub")
        let read = try BookReader.open(url).loadChapter(0)
        XCTAssertEqual(read.text, "Call me Ishmael\u{2014}so wrote Herman Melville & <nobody> else\u{2026}")
        XCTAssertEqual(read.warnings, [])

        // The EPUB 2 book of GeneratedEPUB2Tests (OPF 2.0, NCX, the XHTML 1.1 DTD) through the guard.
        let epub2 = try BookReader.open(try GeneratedEPUB2Tests.makeBook(in: directory))
        XCTAssertTrue(try epub2.loadChapter(0).text.contains("The lamp was lit at dusk—always at dusk… said Mr. Pike."))
    }

    /// A cancelled parse stops at its next event and says so; the book's later parses (its
    /// chapters and markup, kept in the outline) are stopped by the same cancellation.
    func testACancelledParseIsRefusedAsCancelled() throws {
        let url = directory.url.appendingPathComponent("cancel.epub")
        try EPUBWriter.chapters(3, identifier: "urn:uuid:cancel") { "<p>Paragraph \($0).</p>" }.write(to: url)
        let cancellation = ParseCancellation()
        let outline = try BookReader.open(url, cancellation: cancellation)
        XCTAssertNoThrow(try outline.loadChapter(0))
        cancellation.cancel()
        // The read-along markup parses the chapter's document again, so it must stop.
        XCTAssertThrowsError(try outline.chapterMarkup(at: 1)) { error in
            guard case BookError.refusedXML(_, _, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(reason, XMLRefusal.cancelled.reason)
        }
        XCTAssertThrowsError(try BookReader.open(url, cancellation: cancellation))
    }

    /// A parse past its scope's CPU budget is refused by name (a budget of 0 s is spent at the
    /// first check, 256 events in).
    func testAParsePastItsCPUBudgetIsRefused() throws {
        let url = directory.url.appendingPathComponent("cpu.epub")
        let paragraphs = String(repeating: "<p>Some <em>words</em> here.</p>", count: 200)
        try EPUBWriter.chapters(2, identifier: "urn:uuid:cpu") { _ in paragraphs }.write(to: url)
        XCTAssertThrowsError(try XMLParseScope.run(cancellation: nil, cpuSeconds: 0) { () throws(BookError) in
            try BookReader.open(url).loadChapter(0)
        }) { error in
            guard case BookError.refusedXML(_, _, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(reason, XMLRefusal.cpuBudget(seconds: 0).reason)
        }
        XCTAssertNoThrow(try BookReader.open(url).loadChapter(0))
    }
}
