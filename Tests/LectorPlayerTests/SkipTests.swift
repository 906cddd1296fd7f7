import Foundation
import LectorTestKit
import XCTest

/// `lector skip` and Narrator1.Skip (issue 13): across chapter boundaries, on a word start,
/// clamped at the book's start and end; media keys Next/Previous skip with
/// `[narration] next-previous = "skip"`.
final class SkipTests: XCTestCase {
    /// The chapter's speakable text (busctl's JSON: gdbus would print escapes).
    private func chapterText(_ fixture: PlayerFixture, _ chapter: Int) throws -> [Unicode.Scalar] {
        let result = try fixture.busctl(["--json=short", "call", PlayerFixture.mprisName, PlayerFixture.narratorPath,
                                         PlayerFixture.narrator, "GetChapterText", "u", "\(chapter)"])
        guard result.succeeded, let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
              let data = object["data"] as? [Any], let text = data.last as? String else { return [] }
        return Array(text.unicodeScalars)
    }

    private func seconds(_ fixture: PlayerFixture) throws -> Double { Double(try fixture.position()) / 1e6 }

    func testSkipsCrossChaptersLandOnWordsAndStopAtTheBooksEnds() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        fixture.assertError(try fixture.call(PlayerFixture.narrator, "Skip", ["int64 -15000000"], path: PlayerFixture.narratorPath),
                            "NoBook", "Skip without a book")
        let book = try TextBooks.write(TextBooks.threeShortChapters, named: "short.txt", in: fixture.session.directory)
        try fixture.openAndHear(book, chapter: 1)
        XCTAssertTrue(try fixture.playerctl("pause").succeeded)
        XCTAssertTrue(poll(timeout: 5) { (try? chapterText(fixture, 2).isEmpty) == false }, "chapters not read")
        try fixture.playerctl("position", "0")
        let first = try XCTUnwrap(try fixture.metadata()["mpris:length"]?.data as? NSNumber).doubleValue / 1e6

        // Back over the boundary: the end of chapter 1, still paused.
        var moved = try fixture.cli("skip", "-2s")
        XCTAssertEqual(moved.status, 0, "\(moved)\(fixture.context)")
        XCTAssertEqual(try fixture.trackNumber(), 1, "\(moved)")
        let chapterOneLength = try fixture.length()
        XCTAssertEqual(try seconds(fixture), Double(chapterOneLength) / 1e6 - 2, accuracy: 1, "2 s before chapter 1's end")
        XCTAssertEqual(try fixture.status(), "Paused", "the status is kept")
        XCTAssertTrue(moved.stdout.hasPrefix("At ") && moved.stdout.contains(" of chapter 1: Chapter 1"), "\(moved)")

        // Ahead over it again.
        moved = try fixture.cli("skip", "+3s")
        XCTAssertEqual(moved.status, 0, "\(moved)")
        XCTAssertEqual(try fixture.trackNumber(), 2)
        XCTAssertEqual(try seconds(fixture), 1, accuracy: 1)
        XCTAssertLessThan(try seconds(fixture), first)

        // Clamped at the start and at the last word.
        XCTAssertEqual(try fixture.cli("skip", "-1h").status, 0)
        XCTAssertEqual(try fixture.trackNumber(), 1)
        XCTAssertEqual(try fixture.position(), 0)
        XCTAssertEqual(try fixture.cli("skip", "+1h").status, 0)
        XCTAssertEqual(try fixture.trackNumber(), 3, "clamped at the last chapter")
        XCTAssertGreaterThan(try seconds(fixture), Double(try fixture.length()) / 1e6 - 1.5, "at its last word")
        let since = Date()
        XCTAssertTrue(try fixture.playerctl("play").succeeded)
        let word = try XCTUnwrap(fixture.waitForSignal("SpeakingRange", since: since, timeout: 5), fixture.context)
        let lastChapter = try chapterText(fixture, 2)
        XCTAssertEqual(Int(word.arguments[1]) ?? 0, lastChapter.count - "end.".unicodeScalars.count, accuracy: 1,
                       "the last word is heard: \(word.raw)")
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Stopped" }, "the book did not end\(fixture.context)")
    }

    func testASkipWhilePlayingLandsOnAWordStartAndEmitsSeeked() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let book = try TextBooks.write(TextBooks.runOnChapters, named: "river.txt", in: fixture.session.directory)
        try fixture.openAndHear(book)
        try fixture.playOn(1)
        let text = try chapterText(fixture, 0)
        for argument in ["+10s", "-4s", "+1m30s"] {
            let before = try seconds(fixture)
            let since = Date()
            let moved = try fixture.cli("skip", argument)
            XCTAssertEqual(moved.status, 0, "\(argument): \(moved)")
            if argument == "+1m30s" {
                // 90 s is past the 35 s chapter: into chapter 2 (short), at its start or within it.
                XCTAssertEqual(try fixture.trackNumber(), 2, "\(argument)\(fixture.context)")
                continue
            }
            let seeked = try XCTUnwrap(fixture.waitForSignal("Seeked", since: since, timeout: 3), "\(argument)\(fixture.context)")
            let delta = argument == "+10s" ? 10.0 : -4.0
            XCTAssertEqual((Double(seeked.arguments.first ?? "") ?? 0) / 1e6, before + delta, accuracy: 1.2, "\(argument): \(seeked.raw)")
            let word = try XCTUnwrap(fixture.waitForSignal("SpeakingRange", since: since, timeout: 5), fixture.context)
            let offset = try XCTUnwrap(Int(word.arguments[1]))
            XCTAssertTrue(offset == 0 || text[offset - 1].properties.isWhitespace, "\(argument) landed inside a word at \(offset)")
            XCTAssertEqual(try fixture.status(), "Playing")
        }
    }

    func testMediaKeysSkipWhenConfiguredAndChaptersOtherwise() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let book = try TextBooks.write(TextBooks.runOnChapters, named: "river.txt", in: fixture.session.directory)
        try fixture.openAndHear(book)
        let config = URL(fileURLWithPath: fixture.session.environment["XDG_CONFIG_HOME"]! + "/lector/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        func reload(_ text: String) throws -> ProcessResult {
            try text.write(to: config, atomically: true, encoding: .utf8)
            return try fixture.session.run("gdbus", ["call", "--session", "--dest", "io.github.lector.Lector1", "--object-path",
                                                     "/io/github/lector/Lector1", "--method", "io.github.lector.Lector1.Reload"],
                                           timeout: 10)
        }
        XCTAssertTrue(try reload("[narration]\nnext-previous = \"skip\"\nskip-forward-seconds = 6\nskip-back-seconds = 3\n").succeeded)
        XCTAssertTrue(try poll(timeout: 3) { try fixture.bool("CanGoPrevious") }, "Previous can skip back from the first chapter")
        var since = Date()
        try fixture.playerctl("position", "5")
        // The seek's own Seeked first: arriving after `since` below, it would pass for Next's.
        XCTAssertNotNil(fixture.waitForSignal("Seeked", since: since, timeout: 3), "position 5 did not seek\(fixture.context)")
        since = Date()
        XCTAssertTrue(try fixture.playerctl("next").succeeded)
        var seeked = try XCTUnwrap(fixture.waitForSignal("Seeked", since: since, timeout: 3), "next did not skip\(fixture.context)")
        XCTAssertEqual((Double(seeked.arguments.first ?? "") ?? 0) / 1e6, 11, accuracy: 1.5, seeked.raw)
        XCTAssertEqual(try fixture.trackNumber(), 1, "Next skipped within the chapter")
        since = Date()
        XCTAssertTrue(try fixture.playerctl("previous").succeeded)
        seeked = try XCTUnwrap(fixture.waitForSignal("Seeked", since: since, timeout: 3), "previous did not skip\(fixture.context)")
        XCTAssertEqual((Double(seeked.arguments.first ?? "") ?? 0) / 1e6, 8, accuracy: 1.5, seeked.raw)

        // A broken value is refused with its line, and the skip setting stays.
        let broken = try reload("[narration]\nnext-previous = \"track\"\n")
        XCTAssertFalse(broken.succeeded)
        XCTAssertTrue(broken.stderr.contains("BadConfig") && broken.stderr.contains("config.toml:2: next-previous must be"), "\(broken)")
        since = Date()
        XCTAssertTrue(try fixture.playerctl("next").succeeded)
        XCTAssertNotNil(fixture.waitForSignal("Seeked", since: since, timeout: 3), "the last good setting stands")

        // Chapters again.
        XCTAssertTrue(try reload("[narration]\nnext-previous = \"chapter\"\n").succeeded)
        XCTAssertTrue(try fixture.playerctl("next").succeeded)
        XCTAssertTrue(try poll(timeout: 3) { try fixture.trackNumber() == 2 }, "Next is the next chapter again")
        XCTAssertTrue(try poll(timeout: 3) { try !fixture.bool("CanGoNext") }, "the last chapter: CanGoNext false again")
    }

    func testBadOffsetsAreUsageErrors() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        for (arguments, words) in [(["abc"], "not a duration"), (["15"], "no unit"), ([], "say how far"), (["+0s"], "does not move"),
                                   (["-99999h"], "at most 24h"), (["1", "2"], "give one offset")] {
            let result = try fixture.session.run(fixture.lector, ["skip"] + arguments, timeout: 10)
            XCTAssertEqual(result.status, 64, "skip \(arguments): \(result)")
            XCTAssertTrue(result.stderr.contains(words), "skip \(arguments): \(result)")
        }
        let noBook = try fixture.cli("skip", "+30s")
        XCTAssertEqual(noBook.status, 1, "\(noBook)")
        XCTAssertTrue(noBook.stderr.contains("no book is open") && noBook.stderr.contains("NoBook"), "\(noBook)")
    }
}
