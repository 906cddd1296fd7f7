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
        try EPUBWriter.chapters(300, identifier: "urn:uuid:large-chapters", title: "Large") { chapter in
            (0..<150).map { "<p>Sentence \($0) of chapter \(chapter): the river ran slowly past the old mill, and nobody knew why.</p>" }.joined()
        }.write(to: book)

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
        XCTAssertEqual(lines.count, 2, "\(result)")
        guard lines.count == 2 else { return }
        XCTAssertTrue(lines[0].contains("/c299'") && lines[0].contains("Chapter 300"), lines[0])
        XCTAssertTrue(lines[1].contains("/c150'") && lines[1].contains("Chapter 151"), lines[1])
        // The last chapter was not read yet when it was asked for: the reply waited.
        XCTAssertTrue(fixture.daemon.output.contains("GetChapterText: chapter 300 is not read from the book yet"),
                      "every chapter was read before GetChapterText asked: the test did not test waiting\(fixture.context)")
        XCTAssertFalse(result.stderr.contains("Error"), result.stderr)
        XCTAssertLessThan(elapsed, 30, "the wait took \(elapsed) s")
    }
}
