import LectorCore
import XCTest

final class BusTextTests: XCTestCase {
    func testShortTextIsKept() {
        XCTAssertEqual(BusText.capped("The Waste Land"), "The Waste Land")
        XCTAssertEqual(BusText.capped(""), "")
    }

    func testLongTextIsCutAtACharacterWithAnEllipsis() {
        let capped = BusText.capped(String(repeating: "é", count: 2_000_000))
        XCTAssertEqual(capped.count, BusText.maxCharacters)
        XCTAssertTrue(capped.hasSuffix("…"))
        // A cluster is never split (e + combining acute counts as one character).
        let clusters = BusText.capped(String(repeating: "e\u{301}", count: 1000))
        XCTAssertTrue(clusters.dropLast().allSatisfy { $0 == "e\u{301}" })
    }

    func testLongListsAreCapped() {
        let authors = (0..<10_000).map { "Author \($0)" }
        let capped = BusText.cappedList(authors)
        XCTAssertEqual(capped.count, BusText.maxListEntries)
        XCTAssertEqual(capped.first, "Author 0")
        XCTAssertEqual(capped.last, "…")
        XCTAssertEqual(BusText.cappedList(["A", "B"]), ["A", "B"])
    }

    func testTrackWindowKeepsTheCurrentChapterInside() {
        XCTAssertEqual(BusText.trackWindow(count: 10, current: 3), 0..<10)
        let big = 100_000
        for current in [0, 5, 50_000, big - 1] {
            let window = BusText.trackWindow(count: big, current: current)
            XCTAssertEqual(window.count, BusText.maxTracks)
            XCTAssertTrue(window.contains(current), "\(current) outside \(window)")
            XCTAssertTrue(window.lowerBound >= 0 && window.upperBound <= big)
        }
    }
}
