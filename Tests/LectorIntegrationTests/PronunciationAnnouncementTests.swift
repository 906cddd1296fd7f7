import Foundation
import LectorTestKit
import XCTest

/// config.toml's `[pronunciation]` changes what an announcement says, from the next one after a
/// reload, while SpeakingRange keeps naming the words the client sent.
final class PronunciationAnnouncementTests: XCTestCase {
    /// Speaks `text`, waits for its end; its duration (started to finished) and its ranges.
    private func say(_ fixture: LectorFixture, _ text: String) throws -> (seconds: TimeInterval, ranges: [(Int, Int)]) {
        let id = try fixture.speak(text)
        let started = try XCTUnwrap(fixture.started(id, timeout: 15), "speech \(id) did not start\(fixture.context)")
        let finished = try XCTUnwrap(fixture.finished(id, timeout: 20), "speech \(id) did not finish\(fixture.context)")
        XCTAssertEqual(finished.arguments.last, "done")
        let ranges = fixture.ranges(of: id).compactMap { signal -> (Int, Int)? in
            guard signal.arguments.count > 2, let start = Int(signal.arguments[1]), let length = Int(signal.arguments[2]) else { return nil }
            return (start, length)
        }
        return (finished.receivedAt.timeIntervalSince(started.receivedAt), ranges)
    }

    func testTheListenersLexiconChangesAnAnnouncement() throws {
        let fixture = try LectorFixture()
        defer { fixture.shutdown() }
        let directory = try XCTUnwrap(fixture.session.environment["XDG_CONFIG_HOME"]) + "/lector"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/config.toml"
        let text = "Build ok on CI now"

        let before = try say(fixture, text)
        XCTAssertTrue(before.ranges.contains { $0 == (12, 2) }, "CI not heard as itself: \(before.ranges)\(fixture.context)")

        try """
            [pronunciation.en]
            CI = "the continuous integration server of the project"
            ok = "/ˌoʊˈkeɪ/"
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let reload = try fixture.call("Reload", [])
        XCTAssertTrue(reload.succeeded, "\(reload)\(fixture.context)")
        let after = try say(fixture, text)
        // Eight words more: well over a second longer, all of them highlighted as "CI".
        XCTAssertGreaterThan(after.seconds, before.seconds + 1.0,
                             "the lexicon's words were not said (\(after.seconds) s vs \(before.seconds) s)\(fixture.context)")
        XCTAssertGreaterThanOrEqual(after.ranges.filter { $0 == (12, 2) }.count, 4, "\(after.ranges)")
        XCTAssertTrue(after.ranges.contains { $0 == (6, 2) }, "ok (said as IPA) not highlighted as itself: \(after.ranges)")
        XCTAssertTrue(after.ranges.contains { $0 == (15, 3) }, "now, after the replacements, is off: \(after.ranges)")
        for (start, length) in after.ranges { XCTAssertLessThanOrEqual(start + length, text.unicodeScalars.count) }

        // A broken lexicon is refused with its line; the last good one stays.
        try "[pronunciation.en]\nCI = \"/ʘ/\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        let broken = try fixture.call("Reload", [])
        fixture.assertError(broken, "BadConfig", "Reload of a lexicon espeak-ng cannot say")
        XCTAssertTrue(broken.stderr.contains("\(path):2: the IPA for CI has symbols espeak-ng cannot say: \"ʘ\""), "\(broken)")
        let kept = try say(fixture, text)
        XCTAssertGreaterThan(kept.seconds, before.seconds + 1.0, "the last good lexicon was not kept")
    }
}
