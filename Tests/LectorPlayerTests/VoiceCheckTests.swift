import Foundation
import LectorTestKit
import XCTest

/// A book its voice cannot read, end to end with the real daemon and espeak-ng: Narrator1.Book's
/// `unpronounced`, `voice-warning` and `suggested-voice`, `lector status` and `lector doctor`.
final class VoiceCheckTests: XCTestCase {
    /// An EPUB in `language` whose chapters are `passage` repeated.
    private func epub(_ name: String, language: String, passage: String, in fixture: PlayerFixture) throws -> URL {
        let body = String(repeating: "<p>\(passage)</p>", count: 6)
        let chapters = (1...3).map { index in
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <html xmlns="http://www.w3.org/1999/xhtml" xml:lang="\(language)"><head><title>\(index)</title></head>
            <body><h1>\(index)</h1>\(body)</body></html>
            """
        }
        let opf = """
            <?xml version="1.0" encoding="UTF-8"?>
            <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
             <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
              <dc:identifier id="id">urn:lector-test:\(name)</dc:identifier><dc:title>\(name)</dc:title>
              <dc:language>\(language)</dc:language>
             </metadata>
             <manifest>\((1...3).map { "<item id=\"c\($0)\" href=\"c\($0).xhtml\" media-type=\"application/xhtml+xml\"/>" }.joined())</manifest>
             <spine>\((1...3).map { "<itemref idref=\"c\($0)\"/>" }.joined())</spine>
            </package>
            """
        var writer = EPUBWriter.standard(opf: opf)
        for (index, chapter) in chapters.enumerated() { writer = writer.adding("OEBPS/c\(index + 1).xhtml", chapter) }
        let url = fixture.session.directory.appendingPathComponent("\(name).epub")
        try writer.write(to: url)
        return url
    }

    /// Narrator1.Book as busctl prints it, once the check has put `unpronounced` in it.
    private func checkedBook(_ fixture: PlayerFixture, timeout: TimeInterval = 15) throws -> String {
        var text = ""
        XCTAssertTrue(try poll(timeout: timeout) {
            text = try fixture.busctl(["get-property", PlayerFixture.mprisName, PlayerFixture.narratorPath,
                                       PlayerFixture.narrator, "Book"]).stdout
            return text.contains("\"unpronounced\" d ")
        }, "Book never got unpronounced: \(text)\(fixture.context)")
        return text
    }

    private func share(_ book: String) -> Double {
        PlayerFixture.capture(#""unpronounced" d ([0-9.e-]+)"#, in: book).flatMap(Double.init) ?? -1
    }

    func testJapaneseWithKanjiUnderTheJapaneseVoice() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let book = try epub("wagahai", language: "ja", passage: ScriptSamples.japanese, in: fixture)
        try fixture.open(book, play: false)
        XCTAssertEqual(try fixture.busctl(["get-property", PlayerFixture.mprisName, PlayerFixture.narratorPath,
                                           PlayerFixture.narrator, "Voice"]).stdout, "s \"Japanese\"\n")

        let properties = try checkedBook(fixture)
        XCTAssertGreaterThan(share(properties), 0.2, properties)
        // Kanji only: kana, and the long-vowel mark ー, are read.
        XCTAssertTrue(properties.contains(#""unpronounced-scripts" as 1 "Han""#), properties)
        XCTAssertTrue(properties.contains(#""unpronounced-how" s "named""#), properties)
        XCTAssertTrue(properties.contains(#""suggested-voice" s """#), "no installed voice reads kanji and kana: \(properties)")
        XCTAssertTrue(properties.contains("no installed voice can read it"), properties)
        XCTAssertTrue(fixture.daemon.output.contains("lector[warning]: the voice Japanese cannot read"),
                      "no journal warning\(fixture.context)")

        let status = try fixture.cli("status")
        XCTAssertEqual(status.status, 0, "\(status)")
        let warning = try XCTUnwrap(status.stdout.split(separator: "\n").first { $0.hasPrefix("Warning:") }, status.stdout)
        XCTAssertTrue(warning.contains("the voice Japanese cannot read") && warning.contains("Han")
                      && warning.hasSuffix("no installed voice can read it."), String(warning))

        let doctor = try fixture.cli("doctor")
        let line = try XCTUnwrap(doctor.stdout.split(separator: "\n").first { $0.dropFirst(8).hasPrefix("book:") }, doctor.stdout)
        XCTAssertTrue(line.hasPrefix("warning "), String(line))
        XCTAssertTrue(line.contains("\"wagahai\": the voice Japanese cannot read"), String(line))

        // Without a daemon, doctor checks the book read last itself, the same way.
        fixture.daemon.terminate()
        XCTAssertNotNil(fixture.daemon.waitForExit(timeout: 10))
        let offline = try fixture.cli("doctor")
        let offlineLine = try XCTUnwrap(offline.stdout.split(separator: "\n").first { $0.dropFirst(8).hasPrefix("book:") },
                                        offline.stdout)
        XCTAssertTrue(offlineLine.hasPrefix("warning ") && offlineLine.contains("the voice Japanese cannot read")
                      && offlineLine.contains("no installed voice can read it"), String(offlineLine))
    }

    func testRussianUnderAnEnglishVoiceSuggestsRussianAndClearsOnceChosen() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let book = try epub("karenina", language: "ru", passage: ScriptSamples.russian, in: fixture)
        let opened = try fixture.openCall(book.absoluteString, options: "{'voice': <'en-us'>, 'play': <false>}")
        XCTAssertTrue(opened.succeeded, "\(opened)")

        let properties = try checkedBook(fixture)
        XCTAssertGreaterThan(share(properties), 0.8, properties)
        XCTAssertTrue(properties.contains(#""unpronounced-scripts" as 1 "Cyrillic""#), properties)
        XCTAssertTrue(properties.contains(#""unpronounced-how" s "spelled""#), properties)
        XCTAssertTrue(properties.contains(#""suggested-voice" s "Russian""#), properties)

        let status = try fixture.cli("status")
        XCTAssertTrue(status.stdout.contains("Warning:  the voice English (America) cannot read")
                      || status.stdout.contains("Warning:  the voice English_(America) cannot read"), status.stdout)
        XCTAssertTrue(status.stdout.contains("Fix: lector read \(book.path) --voice Russian"), status.stdout)

        // The suggested voice: the check runs again and the warning goes.
        let since = Date()
        let set = try fixture.busctl(["set-property", PlayerFixture.mprisName, PlayerFixture.narratorPath,
                                      PlayerFixture.narrator, "Voice", "s", "Russian"])
        XCTAssertTrue(set.succeeded, "\(set)")
        var text = ""
        XCTAssertTrue(try poll(timeout: 15) {
            text = try fixture.busctl(["get-property", PlayerFixture.mprisName, PlayerFixture.narratorPath,
                                       PlayerFixture.narrator, "Book"]).stdout
            return text.contains("\"unpronounced\" d ") && !text.contains("voice-warning")
        }, "the warning stayed with the Russian voice: \(text)\(fixture.context)")
        XCTAssertLessThan(share(text), 0.05, text)
        // Clients hear of it: PropertiesChanged carries the Book.
        XCTAssertNotNil(fixture.waitForSignal("PropertiesChanged", since: since, timeout: 5) { signal in
            signal.path == PlayerFixture.narratorPath && signal.arguments.first == PlayerFixture.narrator
                && PlayerFixture.changed(signal)["Book"]?.contains("unpronounced") == true
        }, "no PropertiesChanged with the checked Book\(fixture.context)")
        XCTAssertFalse(try fixture.cli("status").stdout.contains("Warning:"))
    }

    func testPlainEnglishIsClean() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let book = try TextBooks.write(Array(repeating: ScriptSamples.english, count: 3), named: "austen.txt",
                                       in: fixture.session.directory)
        try fixture.open(book, play: false)
        let properties = try checkedBook(fixture)
        XCTAssertLessThan(share(properties), 0.02, properties)
        XCTAssertFalse(properties.contains("voice-warning"), properties)
        XCTAssertFalse(properties.contains("suggested-voice"), properties)
        XCTAssertFalse(try fixture.cli("status").stdout.contains("Warning:"))
        let doctor = try fixture.cli("doctor").stdout
        let line = doctor.split(separator: "\n").first { $0.dropFirst(8).hasPrefix("book:") }
        XCTAssertEqual(line.map { String($0.prefix(8)) }, "ok      ", doctor)
    }

    /// A first chapter too short to tell (a title page): the chapters read after it are sampled.
    func testATitlePageIsCheckedWithTheChaptersAfterIt() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let book = try TextBooks.write(["By Anon."] + Array(repeating: ScriptSamples.russian, count: 2), named: "anon.txt",
                                       in: fixture.session.directory)
        let opened = try fixture.openCall(book.absoluteString, options: "{'voice': <'en-us'>, 'play': <false>}")
        XCTAssertTrue(opened.succeeded, "\(opened)")
        let properties = try checkedBook(fixture)
        XCTAssertGreaterThan(share(properties), 0.5, properties)
        XCTAssertTrue(properties.contains(#""suggested-voice" s "Russian""#), properties)
    }

    /// While the book plays: the check runs between the speeches, after the first one (a short
    /// sentence, spelled letter by letter in a few seconds), and is in within seconds. (It waits
    /// for the first speech to be synthesized, however long: espeak-ng's one thread is busy.)
    func testCheckedWhileThePoorlyReadBookPlays() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let book = try epub("karenina-playing", language: "ru", passage: "Все смешалось. " + ScriptSamples.russian, in: fixture)
        let called = Date()
        let opened = try fixture.openCall(book.absoluteString, options: "{'voice': <'en-us'>, 'from-start': <true>}")
        XCTAssertTrue(opened.succeeded, "\(opened)")
        XCTAssertNotNil(fixture.sound(after: called, timeout: 5), "nothing heard\(fixture.context)")
        let properties = try checkedBook(fixture, timeout: 20)
        XCTAssertTrue(properties.contains(#""suggested-voice" s "Russian""#), properties)
        XCTAssertEqual(try fixture.status(), "Playing", "the check changes nothing")
    }
}
