import Foundation
import LectorTestKit
import XCTest

/// `mpris:length` of a chapter is an estimate (synthesized speech has no duration until it is
/// spoken). Shells redraw on every Metadata change and show the length: it must not shrink or
/// grow under the listener's eyes (22:21 became 19:56 within 50 s), only change with the
/// chapter or the rate.
final class LengthTests: SharedDaemonTestCase {
    private let longChapter = 1

    func testTheAnnouncedLengthStaysPutWhileAChapterPlaysAndIsSeekedIn() throws {
        let book = try BookFixtures.require(BookFixtures.wasteland)
        let opened = try fixture.openAndHear(book, chapter: longChapter)
        let announced = try fixture.length()
        XCTAssertGreaterThan(announced, 60_000_000, "this test needs a chapter of minutes")

        // Long enough for several speed measurements (one per ~400 characters synthesized).
        var seen: [Int64] = []
        let deadline = Date(timeIntervalSinceNow: 25)
        repeat {
            let length = try fixture.length()
            if seen.last != length { seen.append(length) }
            usleep(500_000)
        } while Date() < deadline
        XCTAssertEqual(seen, [announced], "mpris:length moved while the chapter played\(fixture.context)")
        let metadataChanges = fixture.playerChanges(since: opened.addingTimeInterval(1))
            .filter { PlayerFixture.changed($0)["Metadata"] != nil }
        XCTAssertEqual(metadataChanges.map(\.raw), [], "Metadata PropertiesChanged during steady playback")
        XCTAssertEqual(try fixture.status(), "Playing")

        // Seeks within the chapter leave it alone too.
        var since = Date()
        XCTAssertTrue(try fixture.playerctl("position", "90").succeeded)
        XCTAssertNotNil(fixture.waitForSignal("Seeked", since: since, timeout: 3), fixture.context)
        XCTAssertTrue(try fixture.playerctl("position", "20-").succeeded)
        XCTAssertTrue(try holds(for: 2) { try fixture.length() == announced }, "a seek changed mpris:length\(fixture.context)")

        // A rate change may show a refined length, in the same PropertiesChanged as Rate.
        since = Date()
        XCTAssertTrue(try fixture.setProperty("Rate", "d", "1.5").succeeded)
        let rateChange = try XCTUnwrap(fixture.waitForChange("Rate", since: since, timeout: 2), fixture.context)
        let refined = try fixture.length()
        if refined != announced {
            XCTAssertEqual(PlayerFixture.changed(rateChange)["Metadata"].flatMap {
                PlayerFixture.capture(#"'mpris:length': <int64 ([0-9]+)>"#, in: $0) }, String(refined),
                           "a refined length goes out with the rate change: \(rateChange.raw)")
        }
        XCTAssertEqual(Double(refined) / Double(announced), 1, accuracy: 0.15, "refined \(announced) -> \(refined)")
        XCTAssertTrue(try holds(for: 2) { try fixture.length() == refined }, "the length moved after the rate change\(fixture.context)")
        XCTAssertEqual(fixture.playerChanges(since: since).count, 1, "one change for the rate: \(fixture.playerChanges(since: since).map(\.raw))")

        // A new chapter announces its own length, once.
        since = Date()
        XCTAssertTrue(try fixture.playerctl("next").succeeded)
        XCTAssertTrue(try poll(timeout: 3) { try fixture.trackNumber() == longChapter + 2 }, fixture.context)
        let next = try fixture.length()
        XCTAssertNotEqual(next, announced)
        XCTAssertTrue(try holds(for: 3) { try fixture.length() == next }, "the next chapter's length moved\(fixture.context)")
        let changes = fixture.playerChanges(since: since).filter { PlayerFixture.changed($0)["Metadata"] != nil }
        XCTAssertEqual(changes.count, 1, "one Metadata change for the chapter change: \(changes.map(\.raw))")
    }
}
