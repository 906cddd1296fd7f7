import LectorCore
import XCTest

final class SenderRateLimiterTests: XCTestCase {
    private let second: UInt64 = 1_000_000

    func testBurstThenRefusedUntilRefilled() {
        var limiter = SenderRateLimiter(burst: 3, perSecond: 2, maxSenders: 10)
        XCTAssertEqual((0..<4).map { _ in limiter.admit(sender: "a", at: 0) }, [true, true, true, false])
        // 2 per second: one token after half a second, not before.
        XCTAssertFalse(limiter.admit(sender: "a", at: second / 2 - 1))
        XCTAssertTrue(limiter.admit(sender: "a", at: second / 2))
        XCTAssertFalse(limiter.admit(sender: "a", at: second / 2))
    }

    func testRefillNeverExceedsBurst() {
        var limiter = SenderRateLimiter(burst: 2, perSecond: 100, maxSenders: 10)
        XCTAssertTrue(limiter.admit(sender: "a", at: 0))
        let later = 3600 * second
        XCTAssertEqual((0..<3).map { _ in limiter.admit(sender: "a", at: later) }, [true, true, false])
    }

    func testSendersHaveTheirOwnBuckets() {
        var limiter = SenderRateLimiter(burst: 1, perSecond: 1, maxSenders: 10)
        XCTAssertTrue(limiter.admit(sender: "flood", at: 0))
        XCTAssertFalse(limiter.admit(sender: "flood", at: 0))
        XCTAssertTrue(limiter.admit(sender: "calm", at: 0))
    }

    func testImportantHasItsOwnAllowance() {
        var limiter = SenderRateLimiter(burst: 2, perSecond: 1, maxSenders: 10, importantBurst: 5, importantPerSecond: 2)
        XCTAssertTrue(limiter.admit(sender: "a", at: 0))
        XCTAssertTrue(limiter.admit(sender: "a", at: 0))
        XCTAssertFalse(limiter.admit(sender: "a", at: 0))
        // Ordinary flood spent; important still goes through, five times, then it is limited too.
        XCTAssertEqual((0..<6).map { _ in limiter.admit(sender: "a", at: 0, important: true) },
                       [true, true, true, true, true, false])
        XCTAssertTrue(limiter.admit(sender: "a", at: second / 2, important: true))
    }

    func testClockGoingBackwardsAddsNothing() {
        var limiter = SenderRateLimiter(burst: 1, perSecond: 1, maxSenders: 10)
        XCTAssertTrue(limiter.admit(sender: "a", at: 10 * second))
        XCTAssertFalse(limiter.admit(sender: "a", at: 0))
        XCTAssertFalse(limiter.admit(sender: "a", at: 10 * second))
        XCTAssertTrue(limiter.admit(sender: "a", at: 11 * second))
    }

    func testIdleSendersAreForgottenFirst() {
        var limiter = SenderRateLimiter(burst: 2, perSecond: 1, maxSenders: 2)
        XCTAssertTrue(limiter.admit(sender: "idle", at: 0))
        XCTAssertTrue(limiter.admit(sender: "busy", at: 0))
        XCTAssertTrue(limiter.admit(sender: "busy", at: 0))
        // At 1 s "idle" has refilled (1 token spent, 1 per second); "busy" has not (2 spent).
        XCTAssertTrue(limiter.admit(sender: "new", at: second))
        XCTAssertEqual(limiter.trackedSenders, 2)
        // "busy" was kept: still limited.
        XCTAssertTrue(limiter.admit(sender: "busy", at: second))
        XCTAssertFalse(limiter.admit(sender: "busy", at: second))
    }

    func testStalestBusySenderIsForgottenWhenNoneIsIdle() {
        var limiter = SenderRateLimiter(burst: 1, perSecond: 0.001, maxSenders: 2)
        XCTAssertTrue(limiter.admit(sender: "old", at: 0))
        XCTAssertTrue(limiter.admit(sender: "recent", at: second))
        XCTAssertTrue(limiter.admit(sender: "new", at: 2 * second))
        XCTAssertEqual(limiter.trackedSenders, 2)
        XCTAssertFalse(limiter.admit(sender: "recent", at: 2 * second))  // still tracked, still empty
        XCTAssertFalse(limiter.admit(sender: "new", at: 2 * second))
    }

    func testMemoryStaysBoundedUnderManySenders() {
        var limiter = SenderRateLimiter(burst: 5, perSecond: 1, maxSenders: 64)
        for index in 0..<10_000 {
            _ = limiter.admit(sender: ":1.\(index)", at: UInt64(index))
            XCTAssertLessThanOrEqual(limiter.trackedSenders, 64)
        }
    }

    func testForgetResetsASender() {
        var limiter = SenderRateLimiter(burst: 1, perSecond: 0, maxSenders: 4)
        XCTAssertTrue(limiter.admit(sender: "a", at: 0))
        XCTAssertFalse(limiter.admit(sender: "a", at: 100 * second))
        limiter.forget(sender: "a")
        XCTAssertEqual(limiter.trackedSenders, 0)
        XCTAssertTrue(limiter.admit(sender: "a", at: 100 * second))
    }
}
