import Foundation
import LectorTestKit
import XCTest

/// Every way out runs the one teardown: the bookmark holds the word being heard, and an exit
/// nobody asked for (the session bus going away) ends with a failure status, so systemd's
/// `Restart=on-failure` brings the daemon back; an asked-for one (SIGTERM) ends with 0. Nothing
/// of the seconds of narration the sound server holds is heard once the daemon has gone.
final class ExitTests: XCTestCase {
    private static let wastelandIdentity = "code.google.com.epub-samples.wasteland-basic"

    private func bookmark(_ fixture: PlayerFixture) -> (chapter: Int, offset: Int)? {
        fixture.bookmark(of: Self.wastelandIdentity).map { ($0.chapter, $0.offset) }
    }

    /// Narrates chapter 2 until a word about 2 s in is heard (before the first periodic
    /// bookmark at 5 s), and returns the start offset of the last word signalled.
    private func narrateAFewWords(_ fixture: PlayerFixture) throws -> Int {
        let book = try BookFixtures.require(BookFixtures.wasteland)
        let since = try fixture.openAndHear(book, chapter: 1)
        XCTAssertTrue(try poll(timeout: 10) { try fixture.position() >= 2_000_000 }, "chapter 2 did not play for 2 s\(fixture.context)")
        let ranges = fixture.signals("SpeakingRange", since: since)
        let last = try XCTUnwrap(ranges.last, "no SpeakingRange while narrating\(fixture.context)")
        return try XCTUnwrap(Int(last.arguments[1]), "SpeakingRange \(last.raw)")
    }

    private func assertNoCrash(_ daemon: ManagedProcess, file: StaticString = #filePath, line: UInt = #line) {
        for sign in ["Program crashed", "Fatal error", "unowned reference", "Assertion failed"] {
            XCTAssertFalse(daemon.output.contains(sign), "the daemon crashed on the way out:\n\(daemon.output)", file: file, line: line)
        }
    }

    /// Narration keeps seconds of audio on the sound server: none of it may play on after the
    /// daemon has exited (the exit corks and flushes its stream before disconnecting). The exit
    /// can come within the ~10 ms a pause takes to fall silent, and the monitor dates sound in
    /// 10-ms blocks, so the last block heard may straddle it: only sound from 30 ms on counts.
    private func assertSilentAfterExit(_ fixture: PlayerFixture, exited: Date, _ how: String,
                                       file: StaticString = #filePath, line: UInt = #line) {
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertNil(fixture.recording.firstSound(after: exited.addingTimeInterval(0.03)),
                     "buffered narration heard after the daemon exited (\(how))\(fixture.context)", file: file, line: line)
    }

    func testBusRestartDuringNarrationSavesTheHeardWordAndExitsWithFailure() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let heard = try narrateAFewWords(fixture)

        try fixture.session.restartBus()
        let status = fixture.daemon.waitForExit(timeout: 10)
        let exited = Date()
        XCTAssertEqual(status, 1, "losing the bus must end the daemon with a failure status (Restart=on-failure)\n\(fixture.daemon.output)")
        assertNoCrash(fixture.daemon)
        assertSilentAfterExit(fixture, exited: exited, "bus lost")
        XCTAssertTrue(fixture.daemon.output.contains("lost the session bus"), fixture.daemon.output)
        let saved = try XCTUnwrap(bookmark(fixture), "no bookmark written when the bus went away\n\(fixture.daemon.output)")
        XCTAssertEqual(saved.chapter, 1, "the bookmark's chapter (0-based)")
        // The word being heard at exit: at or after the last one signalled, and close to it
        // (the teardown follows within milliseconds; a 5 s periodic bookmark would be far behind).
        XCTAssertGreaterThanOrEqual(saved.offset, heard, "the bookmark is behind the last word heard")
        XCTAssertLessThanOrEqual(saved.offset, heard + 60, "the bookmark is past the word heard at exit")

        // The unit (or D-Bus activation) starts a new daemon on the new bus; it resumes there.
        try fixture.startDaemon()
        let book = try BookFixtures.require(BookFixtures.wasteland)
        let resume = try fixture.cli("read", book.path)
        XCTAssertEqual(resume.status, 0, "\(resume)\(fixture.context)")
        XCTAssertEqual(try fixture.trackNumber(), 2, "resumes in the bookmarked chapter\(fixture.context)")
    }

    func testSigtermWritesTheHeardWordAndExitsCleanly() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let heard = try narrateAFewWords(fixture)

        fixture.daemon.send(signal: SIGTERM)
        XCTAssertEqual(fixture.daemon.waitForExit(timeout: 10), 0, "SIGTERM is an asked-for exit\n\(fixture.daemon.output)")
        let exited = Date()
        assertNoCrash(fixture.daemon)
        assertSilentAfterExit(fixture, exited: exited, "SIGTERM")
        let saved = try XCTUnwrap(bookmark(fixture), "no bookmark written on SIGTERM")
        XCTAssertEqual(saved.chapter, 1)
        XCTAssertGreaterThanOrEqual(saved.offset, heard)
        XCTAssertLessThanOrEqual(saved.offset, heard + 60)
    }

    func testQuitWritesTheHeardWordAndLeavesNothingPlaying() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let heard = try narrateAFewWords(fixture)

        XCTAssertTrue(try fixture.call(PlayerFixture.root, "Quit").succeeded, "Quit\(fixture.context)")
        XCTAssertEqual(fixture.daemon.waitForExit(timeout: 10), 0, "Quit is an asked-for exit\n\(fixture.daemon.output)")
        let exited = Date()
        assertNoCrash(fixture.daemon)
        assertSilentAfterExit(fixture, exited: exited, "MPRIS Quit")
        let saved = try XCTUnwrap(bookmark(fixture), "no bookmark written on Quit")
        XCTAssertEqual(saved.chapter, 1)
        XCTAssertGreaterThanOrEqual(saved.offset, heard)
        XCTAssertLessThanOrEqual(saved.offset, heard + 60)
    }
}
