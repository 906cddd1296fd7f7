import LectorCore
import XCTest

final class DurationTextTests: XCTestCase {
    func testDurationsAsTyped() throws {
        XCTAssertEqual(try DurationText.seconds("45s"), 45)
        XCTAssertEqual(try DurationText.seconds("20m"), 1200)
        XCTAssertEqual(try DurationText.seconds("1h30m"), 5400)
        XCTAssertEqual(try DurationText.seconds("1H30M15S"), 5415)
        XCTAssertEqual(try DurationText.seconds("24h"), 86400)
        for bad in ["", "abc", "20", "m", "1m1h", "1h1h", "25h", "99999h", "1.5h", "1 h", "99999999999s"] {
            XCTAssertThrowsError(try DurationText.seconds(bad), bad) { error in
                XCTAssertEqual((error as? LectorError)?.kind, .invalidArgument, bad)
            }
        }
        XCTAssertTrue("\(try? DurationText.seconds("20") as Any)" == "nil")
        XCTAssertThrowsError(try DurationText.seconds("20")) { XCTAssertTrue("\($0)".contains("20m for minutes"), "\($0)") }
    }

    func testSleepRequests() throws {
        XCTAssertEqual(try SleepRequest("off"), .off)
        XCTAssertEqual(try SleepRequest("chapter"), .endOfChapter)
        XCTAssertEqual(try SleepRequest("1h30m"), .duration(seconds: 5400))
        XCTAssertThrowsError(try SleepRequest("0")) { XCTAssertTrue("\($0)".contains("pause at once"), "\($0)") }
        XCTAssertThrowsError(try SleepRequest("0m")) { XCTAssertTrue("\($0)".contains("pause at once"), "\($0)") }
        XCTAssertThrowsError(try SleepRequest("-5m")) { XCTAssertTrue("\($0)".contains("negative"), "\($0)") }
        XCTAssertThrowsError(try SleepRequest("99999h")) { XCTAssertTrue("\($0)".contains("at most 24h"), "\($0)") }
        XCTAssertThrowsError(try SleepRequest(""))
    }

    func testSignedMoves() throws {
        XCTAssertEqual(try DurationText.signedMicroseconds("-15s"), -15_000_000)
        XCTAssertEqual(try DurationText.signedMicroseconds("+30s"), 30_000_000)
        XCTAssertEqual(try DurationText.signedMicroseconds("2m"), 120_000_000)
        for bad in ["abc", "+0s", "--5s", "-", "15"] {
            XCTAssertThrowsError(try DurationText.signedMicroseconds(bad), bad)
        }
    }

    func testClock() {
        XCTAssertEqual(DurationText.clock(seconds: 65), "1:05")
        XCTAssertEqual(DurationText.clock(seconds: 3723), "1:02:03")
        XCTAssertEqual(DurationText.clock(seconds: -3), "0:00")
    }
}
