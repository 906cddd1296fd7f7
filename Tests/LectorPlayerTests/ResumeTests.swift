import Foundation
import LectorTestKit
import XCTest

/// Resume from anywhere: after a restart the book read last waits, stopped at its bookmark, for
/// a media key, `playerctl play`/`play-pause` or `lector read` without a file. Nothing plays on
/// its own.
final class ResumeTests: XCTestCase {
    private static let wastelandIdentity = "code.google.com.epub-samples.wasteland-basic"

    /// SIGTERM (the bookmark is written at the word heard), then a new daemon on the same state.
    private func restart(_ fixture: PlayerFixture, file: StaticString = #filePath, line: UInt = #line) throws -> Date {
        fixture.daemon.send(signal: SIGTERM)
        XCTAssertEqual(fixture.daemon.waitForExit(timeout: 10), 0, "SIGTERM\(fixture.context)", file: file, line: line)
        let started = Date()
        try fixture.startDaemon()
        return started
    }

    private var recentBookFile: (PlayerFixture) -> URL {
        { URL(fileURLWithPath: $0.session.environment["XDG_STATE_HOME"]!).appendingPathComponent("lector/recent-book.json") }
    }

    func testAfterARestartTheBookReadLastWaitsStoppedAndPlayPlayPauseAndReadResumeIt() throws {
        let book = try BookFixtures.require(BookFixtures.wasteland)
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        XCTAssertEqual(try fixture.cli("read", book.path, "--chapter", "2", "--from-start").status, 0, fixture.context)
        XCTAssertTrue(try poll(timeout: 15) { try fixture.position() >= 4_000_000 }, "did not play 4 s\(fixture.context)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: recentBookFile(fixture).path), "the book read last is not remembered")

        let started = try restart(fixture)
        let mark = try XCTUnwrap(fixture.bookmark(of: Self.wastelandIdentity), "no bookmark after SIGTERM")
        XCTAssertEqual(mark.chapter, 1)
        XCTAssertGreaterThan(mark.offset, 0)

        // Idle with a resumable book: a card to press in the shells, nothing playing.
        XCTAssertTrue(try poll(timeout: 10) { try fixture.bool("CanPlay") }, "CanPlay stays false after a restart\(fixture.context)")
        XCTAssertEqual(try fixture.status(), "Stopped")
        let metadata = try fixture.metadata()
        XCTAssertEqual(metadata["xesam:album"]?.data as? String, "The Waste Land", "Metadata\(fixture.context)")
        XCTAssertEqual(metadata["xesam:title"]?.data as? String, BookFixtures.wastelandTitles[1])
        XCTAssertEqual((metadata["xesam:trackNumber"]?.data as? NSNumber)?.intValue, 2)
        XCTAssertEqual(metadata["xesam:artist"]?.data as? [String], ["T.S. Eliot"])
        let stoppedAt = try fixture.position()
        XCTAssertGreaterThan(stoppedAt, 2_000_000, "Position is the bookmark's place, not the chapter start")
        XCTAssertTrue(try holds(for: 1.5) { try fixture.status() == "Stopped" }, "started playing on its own\(fixture.context)")
        // The new daemon plays nothing unasked. Listened for from a second after the restart: the
        // monitor dates samples by their chunk's arrival, and on pipewire-pulse the old daemon's
        // last milliseconds can arrive just after its exit (the tail itself is ExitTests' claim).
        XCTAssertNil(fixture.recording.firstSound(after: started.addingTimeInterval(1)),
                     "heard after a restart without being asked\(fixture.context)")
        XCTAssertNil(try fixture.narrationStream(), "a stopped daemon holds a narration stream")

        // playerctl play: at the bookmarked word.
        var since = Date()
        XCTAssertTrue(try fixture.playerctl("play").succeeded)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Playing" }, fixture.context)
        XCTAssertNotNil(fixture.sound(after: since, timeout: 5), "not heard after play\(fixture.context)")
        var first = try XCTUnwrap(fixture.waitForSignal("SpeakingRange", since: since, timeout: 5), fixture.context)
        XCTAssertEqual(Int(first.arguments[1]), mark.offset, "play resumes at the bookmarked word\(fixture.context)")
        XCTAssertGreaterThanOrEqual(try fixture.position(), stoppedAt)

        // playerctl play-pause, after another restart.
        _ = try restart(fixture)
        let second = try XCTUnwrap(fixture.bookmark(of: Self.wastelandIdentity))
        XCTAssertTrue(try poll(timeout: 10) { try fixture.bool("CanPlay") }, fixture.context)
        since = Date()
        XCTAssertTrue(try fixture.playerctl("play-pause").succeeded)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Playing" }, "play-pause did not resume\(fixture.context)")
        XCTAssertEqual(try fixture.trackNumber(), 2)
        first = try XCTUnwrap(fixture.waitForSignal("SpeakingRange", since: since, timeout: 5), fixture.context)
        XCTAssertEqual(Int(first.arguments[1]), second.offset, "play-pause resumes at the bookmarked word\(fixture.context)")

        // lector read without a file, after another restart.
        _ = try restart(fixture)
        since = Date()
        let read = try fixture.cli("read")
        XCTAssertEqual(read.status, 0, "\(read)\(fixture.context)")
        XCTAssertTrue(read.stdout.contains("Reading The Waste Land, chapter 2: I. THE BURIAL OF THE DEAD"), read.stdout)
        XCTAssertEqual(try fixture.status(), "Playing")
        XCTAssertNotNil(fixture.sound(after: since, timeout: 5), "not heard after lector read\(fixture.context)")
    }

    /// The bookmark keeps Position with the word: after a restart Position is where Stop left it
    /// (within 0.3 s), not an estimate from the word's offset (1.4-2.2 s ahead before), and a
    /// pause's Position is at most a word and its pause ahead of it.
    func testPositionSurvivesARestart() throws {
        let book = try BookFixtures.require(BookFixtures.wasteland)
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        XCTAssertEqual(try fixture.cli("read", book.path, "--chapter", "2", "--from-start").status, 0, fixture.context)
        XCTAssertTrue(try poll(timeout: 15) { try fixture.position() >= 6_000_000 }, "did not play 6 s\(fixture.context)")
        XCTAssertTrue(try fixture.playerctl("pause").succeeded)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Paused" }, fixture.context)
        let paused = try fixture.position()
        XCTAssertTrue(try fixture.playerctl("stop").succeeded)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Stopped" }, fixture.context)
        let stopped = try fixture.position()
        _ = try restart(fixture)
        XCTAssertTrue(try poll(timeout: 10) { try fixture.bool("CanPlay") }, "CanPlay stays false after a restart\(fixture.context)")
        let restored = try fixture.position()
        print("Position paused \(paused) µs, stopped \(stopped) µs, after the restart \(restored) µs")
        XCTAssertLessThanOrEqual(abs(restored - stopped), 300_000, "Position moved by \(restored - stopped) µs across a restart")
        XCTAssertLessThanOrEqual(restored, paused)
        XCTAssertLessThanOrEqual(paused - restored, 1_500_000, "Position went back further than a word and its pause")
        // Play goes on from there.
        XCTAssertTrue(try fixture.playerctl("play").succeeded)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Playing" }, fixture.context)
        XCTAssertGreaterThanOrEqual(try fixture.position(), restored)
    }

    /// No daemon at all: `lector read` starts one, whose start-up resume is still parsing when
    /// the Resume call comes; the call waits for it and plays.
    func testReadWithoutAFileStartsTheDaemonAndResumesTheBookReadLast() throws {
        let book = try BookFixtures.require(BookFixtures.wasteland)
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        XCTAssertEqual(try fixture.cli("read", book.path, "--chapter", "3", "--from-start").status, 0, fixture.context)
        XCTAssertTrue(try poll(timeout: 15) { try fixture.position() >= 2_000_000 }, "did not play 2 s\(fixture.context)")
        fixture.daemon.send(signal: SIGTERM)
        XCTAssertEqual(fixture.daemon.waitForExit(timeout: 10), 0, fixture.context)
        XCTAssertFalse(try fixture.session.busNameHasOwner(PlayerFixture.mprisName))

        let since = Date()
        let read = try fixture.cli("read")
        XCTAssertEqual(read.status, 0, "\(read)\(fixture.context)")
        XCTAssertTrue(read.stdout.contains("Reading The Waste Land, chapter 3: II. A GAME OF CHESS"), read.stdout)
        XCTAssertEqual(try fixture.status(), "Playing")
        XCTAssertEqual(try fixture.trackNumber(), 3)
        XCTAssertGreaterThan(try fixture.position(), 1_000_000, "resumed at the bookmark, not the chapter start")
        XCTAssertNotNil(fixture.sound(after: since, timeout: 5), "not heard\(fixture.context)")
    }

    func testNothingToResumeAGoneBookAndAnUnreadableRecordAreSaidPlainly() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }

        // Nothing was ever read.
        let none = try fixture.cli("read")
        XCTAssertEqual(none.status, 1, "\(none)")
        XCTAssertTrue(none.stderr.contains("no book has been read yet"), "\(none)")
        fixture.assertError(try fixture.call(PlayerFixture.narrator, "Resume", path: PlayerFixture.narratorPath), "NoBook", "Resume")
        fixture.assertError(try fixture.call(PlayerFixture.player, "PlayPause"), "NoBook", "PlayPause")
        XCTAssertTrue(try fixture.call(PlayerFixture.player, "Play").succeeded, "Play with nothing to play does nothing")
        XCTAssertEqual(try fixture.status(), "Stopped")
        XCTAssertEqual(try fixture.bool("CanPlay"), false)

        // The book read last is moved away while the daemon is down.
        let book = try TextBooks.write(TextBooks.runOnChapters, named: "river.txt", in: fixture.session.directory)
        try fixture.openAndHear(book)
        _ = try restart(fixture)
        XCTAssertTrue(try poll(timeout: 10) { try fixture.bool("CanPlay") }, fixture.context)
        fixture.daemon.send(signal: SIGTERM)
        XCTAssertEqual(fixture.daemon.waitForExit(timeout: 10), 0, fixture.context)
        let away = book.deletingLastPathComponent().appendingPathComponent("moved.txt")
        try FileManager.default.moveItem(at: book, to: away)
        try fixture.startDaemon()
        XCTAssertTrue(try holds(for: 1) { try !fixture.bool("CanPlay") }, "a gone book is offered\(fixture.context)")
        XCTAssertEqual(try fixture.trackID(), "/org/mpris/MediaPlayer2/TrackList/NoTrack")
        let gone = try fixture.cli("read")
        XCTAssertEqual(gone.status, 1, "\(gone)")
        XCTAssertTrue(gone.stderr.contains(book.path) && gone.stderr.contains("gone"), "the message names the file: \(gone)")
        fixture.assertError(try fixture.call(PlayerFixture.narrator, "Resume", path: PlayerFixture.narratorPath), "NotFound", "Resume")
        // It comes back: the record was kept.
        try FileManager.default.moveItem(at: away, to: book)
        let back = try fixture.cli("read")
        XCTAssertEqual(back.status, 0, "\(back)\(fixture.context)")
        XCTAssertEqual(try fixture.status(), "Playing")

        // An unreadable record is set aside and reported; the daemon serves on, with nothing to resume.
        fixture.daemon.send(signal: SIGTERM)
        XCTAssertEqual(fixture.daemon.waitForExit(timeout: 10), 0, fixture.context)
        try Data("{ not a record".utf8).write(to: recentBookFile(fixture))
        try fixture.startDaemon()
        XCTAssertTrue(poll(timeout: 5) { fixture.daemon.output.contains("set aside") }, "not reported\(fixture.context)")
        let names = try FileManager.default.contentsOfDirectory(atPath: recentBookFile(fixture).deletingLastPathComponent().path)
        XCTAssertTrue(names.contains { $0.hasPrefix("recent-book.json.corrupt-") }, "\(names)")
        let unreadable = try fixture.cli("read")
        XCTAssertEqual(unreadable.status, 1, "\(unreadable)")
        XCTAssertTrue(unreadable.stderr.contains("no book has been read yet"), "\(unreadable)")
    }

    /// A book heard to its end starts over when resumed (its end would only stop again).
    func testABookHeardToItsEndResumesFromItsStart() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let book = try TextBooks.write(TextBooks.threeShortChapters, named: "short.txt", in: fixture.session.directory)
        try fixture.openAndHear(book, chapter: 2)
        XCTAssertTrue(try poll(timeout: 20) { try fixture.status() == "Stopped" }, "the book did not end\(fixture.context)")
        _ = try restart(fixture)
        XCTAssertTrue(try poll(timeout: 10) { try fixture.bool("CanPlay") }, fixture.context)
        XCTAssertEqual(try fixture.trackNumber(), 1, "a finished book resumes at its first chapter")
        XCTAssertLessThan(try fixture.position(), 500_000)
        let since = Date()
        XCTAssertTrue(try fixture.playerctl("play").succeeded)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Playing" }, fixture.context)
        XCTAssertNotNil(fixture.sound(after: since, timeout: 5), fixture.context)
        XCTAssertEqual(try fixture.trackNumber(), 1)
    }
}
