import Foundation
import LectorTestKit
import XCTest

/// Narrator1.GetChapterText right after Open, on a large book whose later chapters are still
/// being read in the background: the reply waits for the chapter and carries its text.
final class ChapterTextWaitTests: XCTestCase {
    func testGetChapterTextAtOnceAfterOpenWaitsForTheChapter() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        // 300 chapters, 4 MB of text: the last is read from the book well after Open replies.
        let book = fixture.session.directory.appendingPathComponent("large.epub")
        let script = """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1], "w", compression=zipfile.ZIP_DEFLATED)
            z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
            z.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>')
            n = 300
            items = "".join(f'<item id="c{i}" href="c{i}.xhtml" media-type="application/xhtml+xml"/>' for i in range(n))
            spine = "".join(f'<itemref idref="c{i}"/>' for i in range(n))
            z.writestr("book.opf", f'<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:uuid:large-chapters</dc:identifier><dc:title>Large</dc:title><dc:language>en</dc:language></metadata><manifest>{items}</manifest><spine>{spine}</spine></package>')
            for i in range(n):
                para = "".join(f"<p>Sentence {j} of chapter {i + 1}: the river ran slowly past the old mill, and nobody knew why.</p>" for j in range(150))
                z.writestr(f"c{i}.xhtml", f'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>C{i}</title></head><body><h1>Chapter {i + 1}</h1>{para}</body></html>')
            z.close()
            """
        XCTAssertEqual(try fixture.session.run("/usr/bin/python3", ["-c", script, book.path]).status, 0)

        // Open and, in the same shell at once, the last chapter and a middle one.
        let narrator = PlayerFixture.narrator
        let call = "gdbus call --session --dest \(PlayerFixture.mprisName) --object-path \(PlayerFixture.narratorPath) --method"
        let started = Date()
        let result = try fixture.session.run("/bin/sh", ["-c", """
            \(call) \(narrator).Open '\(book.absoluteString)' "{'play': <false>, 'from-start': <true>}" >/dev/null || exit 3
            \(call) \(narrator).GetChapterText 299 | head -c 300; echo
            \(call) \(narrator).GetChapterText 150 | head -c 300; echo
            """], timeout: 60)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(result.status, 0, "\(result)\(fixture.context)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, result.stdout)
        XCTAssertTrue(lines[0].contains("/c299'") && lines[0].contains("Chapter 300"), lines[0])
        XCTAssertTrue(lines[1].contains("/c150'") && lines[1].contains("Chapter 151"), lines[1])
        // The last chapter was not read yet when it was asked for: the reply waited.
        XCTAssertTrue(fixture.daemon.output.contains("GetChapterText: chapter 300 is not read from the book yet"),
                      "every chapter was read before GetChapterText asked: the test did not test waiting\(fixture.context)")
        XCTAssertFalse(result.stderr.contains("Error"), result.stderr)
        XCTAssertLessThan(elapsed, 30, "the wait took \(elapsed) s")
    }
}
