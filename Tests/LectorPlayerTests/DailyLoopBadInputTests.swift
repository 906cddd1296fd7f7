import Foundation
import LectorTestKit
import XCTest

/// Issue 13's bad input, all against one playing book: `lector sleep 0`, `-5m`, `99999h`,
/// `lector skip abc`, a library entry whose file is gone, a rate out of range; each is a clear
/// message with exit status 64 (usage) or 1 (failure) and a named D-Bus error, and afterwards
/// nothing has changed: the same book plays at the same rate, the sleep timer stands, the
/// bookmark is intact, the daemon serves.
final class DailyLoopBadInputTests: XCTestCase {
    func testBadInputIsRefusedPlainlyAndChangesNothing() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let story = try TextBooks.write(TextBooks.threeShortChapters, named: "story.txt", in: fixture.session.directory)
        try fixture.openAndHear(story)
        XCTAssertTrue(try fixture.playerctl("pause").succeeded)
        let away = story.deletingLastPathComponent().appendingPathComponent("moved-away.txt")
        try FileManager.default.moveItem(at: story, to: away)
        let river = try TextBooks.write(TextBooks.runOnChapters, named: "river.txt", in: fixture.session.directory)
        try fixture.openAndHear(river)
        XCTAssertEqual(try fixture.cli("rate", "1.3").status, 0)
        XCTAssertEqual(try fixture.cli("sleep", "20m").status, 0)
        Thread.sleep(forTimeInterval: 1)
        let track = try fixture.trackID()

        func cli(_ arguments: [String], _ status: Int32, _ words: String, file: StaticString = #filePath, line: UInt = #line) throws {
            let result = try fixture.session.run(fixture.lector, arguments, timeout: 30)
            XCTAssertEqual(result.status, status, "lector \(arguments.joined(separator: " ")): \(result)", file: file, line: line)
            XCTAssertTrue(result.stderr.contains(words), "lector \(arguments.joined(separator: " ")): \(result)", file: file, line: line)
            XCTAssertFalse(result.stderr.contains("Fatal error") || result.stderr.contains("Usage: lector") && status == 1,
                           "\(result)", file: file, line: line)
        }
        func bus(_ interface: String, _ method: String, _ arguments: [String], _ error: String, path: String = PlayerFixture.narratorPath,
                 file: StaticString = #filePath, line: UInt = #line) throws {
            fixture.assertError(try fixture.call(interface, method, arguments, path: path), error, "\(method) \(arguments)",
                                file: file, line: line)
        }

        // Sleep: usage errors before anything is sent; InvalidArgument over the bus.
        try cli(["sleep", "0"], 64, "a sleep timer of 0 would pause at once")
        try cli(["sleep", "-5m"], 64, "cannot be negative")
        try cli(["sleep", "99999h"], 64, "at most 24h")
        for bad in ["0", "-5m", "99999h"] {
            try bus(PlayerFixture.narrator, "SetSleepTimer", [PlayerFixture.quoted(bad)], "InvalidArgument")
        }
        // Skip.
        try cli(["skip", "abc"], 64, "\"abc\" is not a duration")
        // A rate out of range: the CLI, MPRIS and Open.
        try cli(["rate", "3"], 64, "rate must be from 0.5 to 2.5, not 3.0")
        try cli(["read", river.path, "--rate", "0.2"], 64, "--rate must be from 0.5 to 2.5, not 0.2")
        let mpris = try fixture.call("org.freedesktop.DBus.Properties", "Set", ["'org.mpris.MediaPlayer2.Player'", "'Rate'", "<3.0>"],
                                     path: PlayerFixture.mprisPath)
        fixture.assertError(mpris, "InvalidArgument", "Rate 3")
        try bus(PlayerFixture.narrator, "Open", [PlayerFixture.quoted(river.absoluteString), "{'rate': <9.0>}"], "InvalidArgument")
        // A library entry whose file is gone: named by its title, refused, still listed.
        let library = try fixture.cli("library")
        let title = try XCTUnwrap(library.stdout.split(separator: "\n").first { $0.hasSuffix(story.path) }?.split(separator: "\t").first,
                                  "\(library)")
        XCTAssertTrue(library.stdout.contains("missing\t\(story.path)"), "\(library)")
        try cli(["read", String(title)], 1, "is in the library, but its file is gone")
        try cli(["read", String(title)], 1, "io.github.lector.Error.NotFound")
        try bus(PlayerFixture.narrator, "Open", [PlayerFixture.quoted(story.absoluteString), "{}"], "NotFound")
        // Skips out of any range: clamped, never a crash.
        XCTAssertTrue(try fixture.busCall(PlayerFixture.narrator, "Skip", ["x", "-9223372036854775808"], path: PlayerFixture.narratorPath).succeeded)
        XCTAssertTrue(try fixture.busCall(PlayerFixture.narrator, "Skip", ["x", "9223372036854775807"], path: PlayerFixture.narratorPath).succeeded)
        XCTAssertTrue(try poll(timeout: 3) { try fixture.trackNumber() == 2 }, "Skip to the end lands in the last chapter")
        XCTAssertEqual(try fixture.cli("skip", "-1h").status, 0)
        XCTAssertLessThan(try fixture.position(), 500_000, "and back to the start")

        // Nothing changed.
        XCTAssertTrue(fixture.daemon.isRunning, fixture.context)
        XCTAssertEqual(try fixture.status(), "Playing")
        XCTAssertEqual(try fixture.trackID(), track, "the same book and chapter")
        XCTAssertEqual(try fixture.double("Rate"), 1.3)
        let timer = try fixture.property("SleepTimer", interface: PlayerFixture.narrator, path: PlayerFixture.narratorPath).data as? [String: Any]
        XCTAssertEqual((timer?["mode"] as? [String: Any])?["data"] as? String, "duration", "the sleep timer stands: \(String(describing: timer))")
        XCTAssertTrue(try fixture.cli("library").stdout.contains("missing\t\(story.path)"), "the gone book is still listed")
        XCTAssertTrue(try fixture.playerctl("pause").succeeded)
        XCTAssertTrue(poll(timeout: 3) { fixture.anyBookmarkOffset() >= 0 }, "bookmarks intact")
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.bookmarkDirectory.path)
        XCTAssertFalse(names.contains { $0.contains(".corrupt-") }, "a bookmark was set aside: \(names)")
    }
}
