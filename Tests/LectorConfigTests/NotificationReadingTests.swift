import LectorConfig
import XCTest

final class NotificationReadingTests: XCTestCase {
    private func rules(allow: [String], readBody: Bool = false, quiet: String? = nil) -> Configuration.Notifications {
        var rules = Configuration.Notifications()
        rules.allow = allow
        rules.readBody = readBody
        rules.quietHours = quiet.flatMap(QuietHours.init)
        return rules
    }

    func testOnlyAllowListedAppsAreReadAsAppColonSummary() {
        let r = rules(allow: ["Thunderbird"])
        XCTAssertEqual(r.announcement(app: "thunderbird", summary: " New mail ", body: "secret", minuteOfDay: 600),
                       "thunderbird: New mail")
        XCTAssertNil(r.announcement(app: "Slack", summary: "Ping", body: "", minuteOfDay: 600))
        XCTAssertNil(rules(allow: []).announcement(app: "thunderbird", summary: "x", body: "", minuteOfDay: 600),
                     "an empty allow list reads nothing")
        XCTAssertEqual(rules(allow: ["*"]).announcement(app: "make", summary: "Build done", body: "", minuteOfDay: 600),
                       "make: Build done")
    }

    func testBodyOnlyWhenConfiguredAndWithoutMarkup() {
        XCTAssertEqual(rules(allow: ["*"], readBody: true)
                        .announcement(app: "chat", summary: "Ann", body: "<b>Lunch</b> at 1 &amp; 2?", minuteOfDay: 0),
                       "chat: Ann. Lunch at 1 & 2?")
        XCTAssertEqual(rules(allow: ["*"]).announcement(app: "chat", summary: "Ann", body: "Lunch", minuteOfDay: 0),
                       "chat: Ann")
    }

    func testQuietHoursAcrossMidnight() {
        let r = rules(allow: ["*"], quiet: "22:00-07:00")
        XCTAssertNil(r.announcement(app: "a", summary: "late", body: "", minuteOfDay: 23 * 60))
        XCTAssertNil(r.announcement(app: "a", summary: "early", body: "", minuteOfDay: 6 * 60 + 59))
        XCTAssertEqual(r.announcement(app: "a", summary: "day", body: "", minuteOfDay: 7 * 60), "a: day")
    }

    func testNothingToSayIsNothing() {
        XCTAssertNil(rules(allow: ["*"]).announcement(app: "a", summary: "  ", body: "", minuteOfDay: 0))
    }
}
