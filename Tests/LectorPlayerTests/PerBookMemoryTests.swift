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

    /// Narrator1.BookVoices, (name, language, engine, quality) each.
    private func bookVoices(_ fixture: PlayerFixture) throws -> [[String]] {
        let value = try fixture.property("BookVoices", interface: PlayerFixture.narrator, path: PlayerFixture.narratorPath)
        guard value.type == "a(ssss)", let rows = value.data as? [[Any]] else { throw FixtureError("BookVoices is \(value)") }
        return rows.map { $0.compactMap { $0 as? String } }
    }

    /// The PropertiesChanged of Narrator1 since `since` that name `property`.
    private func narratorChanges(_ fixture: PlayerFixture, _ property: String, since: Date) -> [ObservedSignal] {
        fixture.signals("PropertiesChanged", since: since).filter {
            $0.path == PlayerFixture.narratorPath && $0.arguments.first == PlayerFixture.narrator
                && PlayerFixture.changed($0)[property] != nil
        }
    }

    /// The voices the listener may choose from for the open book (the read-along page's picker):
    /// its language's, neural ones first, the one reading it among them; PropertiesChanged when
    /// another book or another voice changes them, and Voice's when the book being read is opened
    /// again with another voice.
    func testBookVoicesAreThoseOfTheBooksLanguageAndFollowTheBookAndItsVoice() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        XCTAssertEqual(try bookVoices(fixture), [], "no book, no voices")
        let english = fixture.session.directory.appendingPathComponent("english.epub")
        _ = try EPUBWriter.chapters(2, identifier: "urn:uuid:english-voices", title: "English", language: "en-US") { _ in
            "<p>Once upon a time a small house stood at the edge of the wood, and an old woman lived there with her cat.</p>"
        }.write(to: english)
        let german = fixture.session.directory.appendingPathComponent("deutsch.epub")
        _ = try EPUBWriter.chapters(2, identifier: "urn:uuid:deutsch-voices", title: "Deutsch", language: "de") { _ in
            "<p>Es war einmal ein kleines Haus am Rande des Waldes, und dort wohnte eine alte Frau mit ihrer Katze.</p>"
        }.write(to: german)

        let opened = try fixture.openAndHear(english)
        let voices = try bookVoices(fixture)
        let names = voices.map { $0.first ?? "" }
        XCTAssertTrue(voices.allSatisfy { $0.count == 4 }, "\(voices)")
        let espeak = voices.filter { $0[2] == "espeak-ng" }
        XCTAssertTrue(espeak.contains { $0[0] == "English (America)" && $0[1] == "en-us" && $0[3] == "" }, "\(voices)")
        XCTAssertGreaterThanOrEqual(espeak.count, 4, "espeak-ng's English voices: \(voices)")
        XCTAssertTrue(espeak.allSatisfy { $0[1].hasPrefix("en") }, "only English voices: \(voices)")
        // A neural voice this machine has (a Python package's joe) is offered first, as piper.
        let neural = voices.prefix { $0[2] == "piper" }
        XCTAssertEqual(neural.count + espeak.count, voices.count, "neural voices first, then espeak-ng's: \(voices)")
        XCTAssertTrue(neural.allSatisfy { $0[1].hasPrefix("en") }, "\(voices)")
        let reading = try voice(fixture)
        XCTAssertTrue(names.contains(reading), "the voice reading it, \(reading), is offered: \(names)")
        XCTAssertFalse(narratorChanges(fixture, "BookVoices", since: opened).isEmpty, "no PropertiesChanged for BookVoices\(fixture.context)")

        // Another language's espeak-ng voice chosen for it: offered too, last, while it reads.
        let chosen = Date()
        XCTAssertTrue(try setVoice(fixture, "German").succeeded, fixture.context)
        XCTAssertEqual(try bookVoices(fixture).map { $0[0] }, names + ["German"])
        XCTAssertNotNil(fixture.waitForSignal("PropertiesChanged", since: chosen, timeout: 5) {
            $0.path == PlayerFixture.narratorPath && PlayerFixture.changed($0)["BookVoices"] != nil
        }, "BookVoices changed without PropertiesChanged\(fixture.context)")
        let back = Date()
        XCTAssertTrue(try setVoice(fixture, "en-us").succeeded, fixture.context)
        XCTAssertEqual(try bookVoices(fixture).map { $0[0] }, names)
        XCTAssertNotNil(fixture.waitForSignal("PropertiesChanged", since: back, timeout: 5) {
            $0.path == PlayerFixture.narratorPath && PlayerFixture.changed($0)["Voice"] == "'English (America)'"
        }, "no PropertiesChanged for Voice\(fixture.context)")

        // A German book: German voices, and PropertiesChanged says so.
        let other = Date()
        XCTAssertEqual(try fixture.cli("read", german.path).status, 0, fixture.context)
        let germanVoices = try bookVoices(fixture)
        XCTAssertTrue(germanVoices.contains { $0[0] == "German" && $0[2] == "espeak-ng" }, "\(germanVoices)")
        XCTAssertFalse(germanVoices.contains { $0[1].hasPrefix("en") }, "no English voice reads a German book: \(germanVoices)")
        XCTAssertNotNil(fixture.waitForSignal("PropertiesChanged", since: other, timeout: 5) {
            $0.path == PlayerFixture.narratorPath && PlayerFixture.changed($0)["BookVoices"].map { $0.contains("'German'") } ?? false
        }, "no PropertiesChanged for the German book's voices\(fixture.context)")

        // The book being read, opened again with another voice (lector read --voice): Voice says so.
        let again = Date()
        XCTAssertEqual(try fixture.cli("read", german.path, "--voice", "de").status, 0, fixture.context)
        XCTAssertEqual(try voice(fixture), "German", "de is the German voice, already reading: nothing to say")
        let reopened = Date()
        XCTAssertEqual(try fixture.cli("read", german.path, "--voice", "en-us").status, 0, fixture.context)
        XCTAssertEqual(try voice(fixture), "English (America)")
        let announced = try XCTUnwrap(fixture.waitForSignal("PropertiesChanged", since: reopened, timeout: 5) {
            $0.path == PlayerFixture.narratorPath && PlayerFixture.changed($0)["Voice"] == "'English (America)'"
        }, "the book opened again with another voice: no PropertiesChanged for Voice\(fixture.context)")
        // The daemon's signals arrive in order: one for the unchanged voice would have come first.
        XCTAssertEqual(narratorChanges(fixture, "Voice", since: again).count, 1,
                       "Voice announced without changing: \(narratorChanges(fixture, "Voice", since: again))")
        XCTAssertEqual(narratorChanges(fixture, "Voice", since: again).first?.receivedAt, announced.receivedAt)
    }
}
