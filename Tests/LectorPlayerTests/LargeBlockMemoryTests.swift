import Foundation
import LectorTestKit
import XCTest

/// Memory a big chapter takes, and gives back.
final class LargeBlockMemoryTests: XCTestCase {
    /// The daemon's RSS (kB) with `book` heard, then paused, a second on.
    private func residentWithPaused(_ book: URL, _ fixture: PlayerFixture) throws -> Int {
        try fixture.openAndHear(book)
        XCTAssertTrue(try fixture.busCall(PlayerFixture.player, "Pause", []).succeeded)
        Thread.sleep(forTimeInterval: 1)
        return try XCTUnwrap(ProcessProbe.residentKiB(fixture.daemon.pid))
    }

    /// A book that needs blocks of many megabytes (an EPUB whose one document is a 6-MB
    /// paragraph: the document, its text while it grows, the chapter's) and is then replaced by
    /// a small one leaves little more resident than the small one did: the daemon pins glibc's
    /// mmap threshold (LectorService), so such blocks are mapped for themselves and given back
    /// when freed. With glibc's rising threshold the later ones stay in malloc's arenas: 15.6 MB
    /// more with the pin taken out, 4 MB with it. (6 MB, not 10: a debug build's parse of 10 MB
    /// passes the 10-s CPU budget for a book.)
    func testABigBookReplacedLeavesNoLargeBlocksBehind() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let small = try TextBooks.write(TextBooks.threeShortChapters, named: "small.txt", in: fixture.session.directory)
        let big = fixture.session.directory.appendingPathComponent("one-paragraph.epub")
        // Stored, not deflated: 6 MB of one word repeated would be refused as a ZIP bomb.
        try EPUBWriter.slowToParse(identifier: "one-paragraph", body: "<p>" + String(repeating: "word ", count: 1_200_000) + "</p>")
            .write(to: big)
        let pid = fixture.daemon.pid

        let before = try residentWithPaused(small, fixture)

        let called = try fixture.open(big)
        XCTAssertNotNil(fixture.sound(after: called, timeout: 60), "the 6-MB chapter was not heard\(fixture.context)")
        let peak = try XCTUnwrap(ProcessProbe.peakResidentKiB(pid))
        let after = try residentWithPaused(small, fixture)
        print("6-MB chapter: RSS with the small book \(before) kB, peak \(peak) kB, small book again \(after) kB")
        XCTAssertGreaterThan(peak, before + 12 * 1024, "the 6-MB chapter took no large blocks: the test measures nothing")
        XCTAssertLessThanOrEqual(after, before + 12 * 1024, "the small book again, \(after - before) kB more resident than before")
    }

    /// A 10-MB plain text with no line break is read in chapters of at most half a MiB
    /// (PlainTextLayout, rule 7), cut at sentence ends, so opening it costs what such a chapter
    /// costs, not what the file would: its peak was 67 MB over the small book's before.
    func testAOneLineTextIsReadAChapterAtATime() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let small = try TextBooks.write(TextBooks.threeShortChapters, named: "small.txt", in: fixture.session.directory)
        let oneLine = fixture.session.directory.appendingPathComponent("one-line.txt")
        try Data(String(repeating: "It rained. ", count: 950_000).utf8).write(to: oneLine)
        let pid = fixture.daemon.pid

        let before = try residentWithPaused(small, fixture)

        let called = try fixture.open(oneLine)
        XCTAssertNotNil(fixture.sound(after: called, timeout: 60), "the one-line text was not heard\(fixture.context)")
        let tracks = try fixture.property("Tracks", interface: PlayerFixture.trackList).data as? [String] ?? []
        XCTAssertGreaterThan(tracks.count, 20, "10 MB in parts of at most half a MiB")
        XCTAssertTrue(try fixture.busCall(PlayerFixture.player, "Next", []).succeeded)
        Thread.sleep(forTimeInterval: 2)
        let peak = try XCTUnwrap(ProcessProbe.peakResidentKiB(pid))
        print("one-line text: RSS with the small book \(before) kB, peak with the 10-MB line \(peak) kB")
        XCTAssertLessThanOrEqual(peak, before + 12 * 1024, "the 10-MB line took \(peak - before) kB over the small book's RSS")
    }
}
