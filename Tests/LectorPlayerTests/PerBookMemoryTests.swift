import Foundation
import LectorTestKit
import XCTest

/// Per-book memory (issue 13): the rate and voice chosen while reading a book are remembered
/// with its bookmark and come back with it (also after a restart); other books keep the
/// configuration's defaults.
final class PerBookMemoryTests: XCTestCase {
    private func voice(_ fixture: PlayerFixture) throws -> String {
        try fixture.property("Voice", interface: PlayerFixture.narrator, path: PlayerFixture.narratorPath).data as? String ?? "?"
    }

    private func setVoice(_ fixture: PlayerFixture, _ name: String) throws -> ProcessResult {
        try fixture.call("org.freedesktop.DBus.Properties", "Set",
                         ["'\(PlayerFixture.narrator)'", "'Voice'", "<\(PlayerFixture.quoted(name))>"], path: PlayerFixture.narratorPath)
    }

    func testRateAndVoiceFollowTheirBookAndTheDefaultStaysInTheConfig() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let config = URL(fileURLWithPath: fixture.session.environment["XDG_CONFIG_HOME"]! + "/lector/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[speech]\nrate = 1.2\n".write(to: config, atomically: true, encoding: .utf8)
        XCTAssertTrue(try fixture.call("io.github.lector.Lector1", "Reload", path: "/io/github/lector/Lector1").succeeded)
        let first = try TextBooks.write(TextBooks.runOnChapters, named: "first.txt", in: fixture.session.directory)
        let second = try TextBooks.write(TextBooks.threeShortChapters, named: "second.txt", in: fixture.session.directory)

        fixture.assertError(try setVoice(fixture, "en-us"), "NoBook", "Voice without a book")
        try fixture.openAndHear(first)
        XCTAssertEqual(try fixture.double("Rate"), 1.2, "no choice yet: the configured default")
        let defaultVoice = try voice(fixture)
        XCTAssertFalse(defaultVoice.isEmpty)

        // Chosen while reading the first book.
        XCTAssertTrue(try fixture.setProperty("Rate", "d", "1.5").succeeded)
        XCTAssertTrue(try setVoice(fixture, "en-us").succeeded)
        let chosenVoice = try voice(fixture)
        XCTAssertNotEqual(chosenVoice, defaultVoice, "en-us is another voice than the default")
        fixture.assertError(try setVoice(fixture, "no-such-voice"), "UnknownVoice", "an unknown voice")
        XCTAssertEqual(try voice(fixture), chosenVoice, "an unknown voice changed nothing")
        let since = Date()
        XCTAssertNotNil(fixture.sound(after: since, timeout: 3), "heard in the new voice\(fixture.context)")

        // Another book: the defaults.
        XCTAssertEqual(try fixture.cli("read", second.path).status, 0)
        XCTAssertEqual(try fixture.double("Rate"), 1.2)
        XCTAssertEqual(try voice(fixture), defaultVoice)

        // Back to the first: its choices.
        XCTAssertEqual(try fixture.cli("read", first.path).status, 0)
        XCTAssertEqual(try fixture.double("Rate"), 1.5)
        XCTAssertEqual(try voice(fixture), chosenVoice)

        // read --rate/--voice choose for the book they open.
        XCTAssertEqual(try fixture.cli("read", second.path, "--rate", "0.8", "--voice", "en-us").status, 0)
        XCTAssertEqual(try fixture.double("Rate"), 0.8)
        XCTAssertEqual(try voice(fixture), chosenVoice)
        let bad = try fixture.cli("read", second.path, "--rate", "3")
        XCTAssertEqual(bad.status, 64, "\(bad)")
        let unknown = try fixture.cli("read", first.path, "--voice", "nosuchvoice")
        XCTAssertEqual(unknown.status, 1, "\(unknown)")
        XCTAssertTrue(unknown.stderr.contains("UnknownVoice"), "\(unknown)")
        XCTAssertEqual(try fixture.double("Rate"), 0.8, "a refused read changed nothing")

        // After a restart, and in the library.
        XCTAssertEqual(try fixture.cli("read", first.path).status, 0)
        fixture.daemon.send(signal: SIGTERM)
        XCTAssertEqual(fixture.daemon.waitForExit(timeout: 10), 0, fixture.context)
        try fixture.startDaemon()
        XCTAssertTrue(try poll(timeout: 10) { try fixture.bool("CanPlay") }, fixture.context)
        XCTAssertEqual(try fixture.double("Rate"), 1.5, "the first book's rate after a restart")
        XCTAssertEqual(try voice(fixture), chosenVoice)
        let library = try fixture.call(PlayerFixture.narrator, "GetLibrary", path: PlayerFixture.narratorPath)
        XCTAssertTrue(library.stdout.contains("'rate': <1.5>") && library.stdout.contains("'rate': <0.8"), "\(library)")
        XCTAssertTrue(library.stdout.contains("'voice': <'\(chosenVoice)'>"), "\(library)")
    }
}
