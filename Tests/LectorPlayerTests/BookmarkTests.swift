import Foundation
import LectorTestKit
import XCTest

/// Bookmarks survive a killed daemon; --from-start ignores them; a corrupt one is set aside.
final class BookmarkTests: XCTestCase {
    private static let wastelandIdentity = "code.google.com.epub-samples.wasteland-basic"

    func testResumeAfterKillFromStartAndCorruptBookmark() throws {
        let book = try BookFixtures.require(BookFixtures.wasteland)
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }

        // Chapter 2 for about 6 s.
        let read = try fixture.cli("read", book.path, "--chapter", "2", "--from-start")
        XCTAssertEqual(read.status, 0, "\(read)\(fixture.context)")
        XCTAssertTrue(read.stdout.contains("The Waste Land, chapter 2: I. THE BURIAL OF THE DEAD"), read.stdout)
        XCTAssertEqual(try fixture.trackNumber(), 2)
        XCTAssertTrue(try poll(timeout: 15) { try fixture.position() >= 6_000_000 }, "chapter 2 did not play for 6 s\(fixture.context)")
        let saved = try XCTUnwrap(fixture.bookmark(of: Self.wastelandIdentity),
                                  "no bookmark after 6 s of playing (one is due every 5 s)\(fixture.context)")
        XCTAssertEqual(saved.chapter, 1, "the bookmark's chapter (0-based)")
        XCTAssertGreaterThan(saved.offset, 0, "the bookmark's offset")

        // kill -9: no goodbye, only the periodic bookmark remains.
        fixture.daemon.terminate(signal: SIGKILL, grace: 1)
        XCTAssertTrue(try poll(timeout: 5) { try !fixture.session.busNameHasOwner(PlayerFixture.mprisName) })
        try fixture.startDaemon()
        // The new daemon offers the book read last, stopped at its bookmark (ResumeTests).
        XCTAssertTrue(try poll(timeout: 10) { try fixture.bool("CanPlay") }, "nothing offered after the restart\(fixture.context)")
        let offered = try fixture.position()

        var since = Date()
        let resume = try fixture.cli("read", book.path)
        XCTAssertEqual(resume.status, 0, "\(resume)\(fixture.context)")
        XCTAssertEqual(try fixture.trackNumber(), 2, "resumes in the bookmarked chapter\(fixture.context)")
        let position = try fixture.position()
        XCTAssertGreaterThan(position, 3_000_000, "resumed at \(position) µs: the bookmark was older than 5 s\(fixture.context)")
        XCTAssertLessThan(position, 9_000_000, "resumed past where it was killed")
        XCTAssertEqual(Double(position) / 1e6, Double(offered) / 1e6, accuracy: 1.5, "read plays from where the book was offered")
        XCTAssertNil(fixture.waitForSignal("Seeked", since: since, timeout: 0.5),
                     "playing the offered book from its place is not a jump\(fixture.context)")
        XCTAssertNotNil(fixture.sound(after: since, timeout: 5), "not heard after the resume\(fixture.context)")

        // --from-start: chapter 1 at 0.
        let fromStart = try fixture.cli("read", book.path, "--from-start")
        XCTAssertEqual(fromStart.status, 0, "\(fromStart)")
        XCTAssertEqual(try fixture.trackNumber(), 1, "--from-start\(fixture.context)")
        XCTAssertLessThan(try fixture.position(), 1_500_000, "--from-start starts at 0")

        // Another book replaces it: the Waste Land's bookmark is written (chapter 1 now) and left alone.
        let other = try TextBooks.write(TextBooks.threeShortChapters, named: "other.txt", in: fixture.session.directory)
        try fixture.open(other)
        XCTAssertTrue(poll(timeout: 3) { fixture.bookmark(of: Self.wastelandIdentity)?.chapter == 0 },
                      "the bookmark of the replaced book was not written\(fixture.context)")
        let file = try XCTUnwrap(fixture.bookmark(of: Self.wastelandIdentity)?.file)
        try Data("{ this is not a bookmark \u{0}\u{1}".utf8).write(to: file)

        since = Date()
        let corrupt = try fixture.cli("read", book.path)
        XCTAssertEqual(corrupt.status, 0, "a corrupt bookmark must not stop the book from opening: \(corrupt)\(fixture.context)")
        XCTAssertEqual(try fixture.trackNumber(), 1, "a corrupt bookmark: from the start")
        XCTAssertLessThan(try fixture.position(), 1_500_000, "a corrupt bookmark: from the start")
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.bookmarkDirectory.path)
        XCTAssertTrue(names.contains { $0.hasPrefix(file.deletingPathExtension().lastPathComponent) && $0.contains(".corrupt-") },
                      "the corrupt bookmark was not set aside: \(names)")
        XCTAssertNotNil(fixture.sound(after: since, timeout: 5), fixture.context)
    }
}
