import Foundation
import LectorTestKit
import XCTest

/// The CLI for the daily loop (issue 13): voices, chapters, rate, and what status shows (speed,
/// chapter count, the whole book's progress and time left).
final class CLIDailyTests: XCTestCase {
    private func rows(_ text: String) -> [[String]] {
        text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    func testVoicesChaptersRateAndStatus() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }

        // Voices: from espeak-ng itself, filtered by language; no daemon needed.
        fixture.daemon.send(signal: SIGTERM)
        XCTAssertEqual(fixture.daemon.waitForExit(timeout: 10), 0)
        let all = try fixture.cli("voices")
        XCTAssertEqual(all.status, 0, "\(all)")
        XCTAssertGreaterThan(rows(all.stdout).count, 50, "\(all.stdout.prefix(300))")
        XCTAssertTrue(rows(all.stdout).allSatisfy { $0.count == 5 }, "name, languages, gender, identifier, engine")
        XCTAssertTrue(rows(all.stdout).contains { $0[4] == "espeak-ng" }, "\(all.stdout.prefix(300))")
        let english = rows(try fixture.cli("voices", "en").stdout)
        XCTAssertFalse(english.isEmpty)
        XCTAssertTrue(english.allSatisfy { $0[1].split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("en") } },
                      "\(english)")
        XCTAssertTrue(english.contains { $0[1].contains("en-gb") } && english.contains { $0[1].contains("en-us") }, "\(english)")
        let none = try fixture.cli("voices", "xx")
        XCTAssertEqual(none.status, 1, "\(none)")
        XCTAssertTrue(none.stderr.contains("no installed voice speaks xx"), "\(none)")
        XCTAssertEqual(try fixture.cli("voices", "not a tag").status, 64)
        let chaptersWithout = try fixture.cli("chapters")
        XCTAssertEqual(chaptersWithout.status, 1, "\(chaptersWithout)")
        XCTAssertTrue(chaptersWithout.stderr.contains("Lector is not running"), "\(chaptersWithout)")
        XCTAssertFalse(try fixture.session.busNameHasOwner(PlayerFixture.mprisName), "voices or chapters started a daemon")
        try fixture.startDaemon()

        let noBook = try fixture.cli("rate", "1.4")
        XCTAssertEqual(noBook.status, 1, "\(noBook)")
        XCTAssertTrue(noBook.stderr.contains("No book is open"), "\(noBook)")
        XCTAssertEqual(try fixture.cli("chapters").status, 1)

        let book = try BookFixtures.require(BookFixtures.wasteland)
        try fixture.openAndHear(book, chapter: 1)

        // Rate: set, shown, refused out of range.
        let set = try fixture.cli("rate", "1.4")
        XCTAssertEqual(set.status, 0, "\(set)")
        XCTAssertTrue(set.stdout.contains("at 1.4×"), "\(set)")
        XCTAssertEqual(try fixture.double("Rate"), 1.4)
        XCTAssertTrue(try fixture.cli("rate").stdout.contains("Reading The Waste Land at 1.4×."))
        for bad in ["3", "0.1", "fast", "-1"] {
            let refused = try fixture.cli("rate", bad)
            XCTAssertEqual(refused.status, 64, "rate \(bad): \(refused)")
        }
        XCTAssertEqual(try fixture.double("Rate"), 1.4, "nothing changed")

        // Chapters: numbered, titled, timed at the rate, the current one marked.
        XCTAssertTrue(try poll(timeout: 15) {
            let listed = rows(try fixture.cli("chapters").stdout)
            return listed.count == 7 && listed.allSatisfy { !$0[3].isEmpty }
        }, "chapters not all read from the book")
        let chapters = rows(try fixture.cli("chapters").stdout)
        XCTAssertEqual(chapters.map { $0[0] }, (1...7).map(String.init))
        XCTAssertEqual(chapters.map { $0[2] }, BookFixtures.wastelandTitles)
        XCTAssertEqual(chapters.map { $0[4] }, ["", "current", "", "", "", "", ""])
        let shown = try XCTUnwrap(Double(chapters[1][3]))
        XCTAssertEqual(shown, Double(try fixture.length()) / 1e6 / 1.4, accuracy: 1.5, "the duration at 1.4×")

        // Status: the speed, the chapter count, the whole book.
        let status = try fixture.cli("status")
        XCTAssertTrue(status.stdout.contains("Chapter:  2 of 7: I. THE BURIAL OF THE DEAD"), status.stdout)
        XCTAssertTrue(status.stdout.contains("Speed:    1.4×"), status.stdout)
        XCTAssertNotNil(status.stdout.range(of: #"Progress: [0-9]+% of the book, [0-9:]+ left at this speed"#, options: .regularExpression),
                        status.stdout)
        let follow = try fixture.session.spawn(fixture.lector, ["status", "--follow"])
        defer { follow.terminate(grace: 1) }
        XCTAssertTrue(poll(timeout: 5) { follow.standardOutput.contains("playing chapter 2") }, follow.output)
    }
}
