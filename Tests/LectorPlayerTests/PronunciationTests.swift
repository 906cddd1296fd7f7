import Foundation
import LectorTestKit
import XCTest

/// EPUB 3 pronunciation with the real daemon and real espeak-ng: a book whose PLS lexicon says
/// S.E. is "southeast" and whose markup gives "Leibniz" IPA is phonemised that way (`lector
/// phonemes`), and while it is read SpeakingRange names the book's own "S.E." and "Leibniz".
final class PronunciationTests: SharedDaemonTestCase {
    static let ssml = "http://www.w3.org/2001/10/synthesis"
    static let text = "Walk S.E. from the old mill. The Leibniz rule holds."

    static let lexicon = """
        <?xml version="1.0" encoding="UTF-8"?>
        <lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en">
          <lexeme><grapheme>S.E.</grapheme><alias>southeast</alias></lexeme>
        </lexicon>
        """

    /// One chapter: `text`, with `ssml:ph` on "Leibniz"; the lexicon in the manifest.
    func writeBook(body: String = """
        <p>Walk S.E. from the old mill. The <span xmlns:ssml="\(PronunciationTests.ssml)" ssml:alphabet="ipa" \
        ssml:ph="ˈlaɪbnɪts">Leibniz</span> rule holds.</p>
        """, name: String = "directions.epub") throws -> URL {
        let document = """
            <?xml version="1.0" encoding="UTF-8"?>
            <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="en">
            <head><title>Directions</title></head><body>\(body)</body></html>
            """
        let opf = """
            <?xml version="1.0" encoding="UTF-8"?>
            <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
              <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
                <dc:identifier id="uid">urn:uuid:pronunciation-test</dc:identifier>
                <dc:title>Directions</dc:title><dc:language>en</dc:language>
                <meta property="dcterms:modified">2026-01-01T00:00:00Z</meta>
              </metadata>
              <manifest>
                <item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/>
                <item id="pls" href="lexicon.pls" media-type="application/pls+xml"/>
              </manifest>
              <spine><itemref idref="c1"/></spine>
            </package>
            """
        let folder = fixture.session.directory.appendingPathComponent("books", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        _ = try EPUBWriter.standard(opf: opf).adding("OEBPS/c1.xhtml", document)
            .adding("OEBPS/lexicon.pls", Self.lexicon).write(to: url)
        return url
    }

    func offset(of word: String) -> Int {
        let scalars = Array(Self.text.unicodeScalars)
        let target = Array(word.unicodeScalars)
        return (0...(scalars.count - target.count)).first { Array(scalars[$0..<($0 + target.count)]) == target }!
    }

    func testTheBooksLexiconAndPhonemesAreSaidAndTheOriginalWordsHighlighted() throws {
        let book = try writeBook()
        // What espeak-ng will say: "southeast" (s'aUTi:st), not "S E" (,Es'i:); Leibniz as the book's IPA.
        let phonemes = try fixture.cli("phonemes", "--book", book.path, "--chapter", "1")
        XCTAssertEqual(phonemes.status, 0, "\(phonemes)")
        XCTAssertTrue(phonemes.stdout.contains("Walk S.E.") && phonemes.stdout.contains("The Leibniz rule holds."), "the segment's own text is shown: \(phonemes.stdout)")
        XCTAssertTrue(phonemes.stdout.contains("s'aUTi:st"), "S.E. is not phonemised as southeast: \(phonemes.stdout) \(phonemes.stderr)")
        XCTAssertFalse(phonemes.stdout.contains(",Es'i:"), "\(phonemes)")
        XCTAssertTrue(phonemes.stdout.contains("l'aIbnIts"), "the ssml:ph of Leibniz is not said: \(phonemes)")
        XCTAssertTrue(phonemes.stderr.contains("\"S.E.\" is said as southeast"), "\(phonemes)")
        let plain = try fixture.cli("phonemes", "Walk S.E. from the old mill.")
        XCTAssertTrue(plain.stdout.contains(",Es'i:"), "without the book's lexicon espeak-ng says S E: \(plain)")

        // Narration: the words heard are the book's own spans.
        let called = try fixture.openAndHear(book)
        let trackSuffix = "/c0"
        let southeast = (offset(of: "S.E."), 4)
        let leibniz = (offset(of: "Leibniz"), 7)
        let heardLeibniz = fixture.waitForSignal("SpeakingRange", since: called, timeout: 20) { signal in
            signal.arguments.count > 2 && Int(signal.arguments[1]) == leibniz.0
        }
        XCTAssertNotNil(heardLeibniz, "Leibniz was never highlighted\(fixture.context)")
        let ranges = fixture.signals("SpeakingRange", since: called).filter { $0.arguments.first?.hasSuffix(trackSuffix) == true }
            .compactMap { signal -> (Int, Int)? in
                guard signal.arguments.count > 2, let start = Int(signal.arguments[1]), let length = Int(signal.arguments[2]) else { return nil }
                return (start, length)
            }
        XCTAssertTrue(ranges.contains { $0 == southeast }, "S.E. (\(southeast)) not highlighted as itself: \(ranges)\(fixture.context)")
        XCTAssertTrue(ranges.contains { $0 == leibniz }, "Leibniz (\(leibniz)) not highlighted as itself: \(ranges)")
        let scalars = Self.text.unicodeScalars.count
        for (start, length) in ranges {
            XCTAssertLessThanOrEqual(start + length, scalars, "a range past the chapter's text: \(ranges)")
            let word = String(String.UnicodeScalarView(Array(Self.text.unicodeScalars)[start..<(start + length)]))
            XCTAssertFalse(word.contains(" "), "a range spans more than a word: \"\(word)\" in \(ranges)")
        }
        XCTAssertTrue(ranges.contains { $0 == (offset(of: "mill"), 4) }, "words after the replacement are off: \(ranges)")
        _ = try fixture.playerctl("stop")
    }

    func testTheListenersLexiconIsAppliedToABookAtReload() throws {
        let book = try writeBook()
        let config = URL(fileURLWithPath: fixture.session.environment["XDG_CONFIG_HOME"]! + "/lector/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[pronunciation.en]\nmill = \"windmill of the valley\"\n".write(to: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: config) }
        let reload = try fixture.call("io.github.lector.Lector1", "Reload", [], path: PlayerFixture.narratorPath)
        XCTAssertTrue(reload.succeeded, "\(reload)")
        let phonemes = try fixture.cli("phonemes", "--book", book.path)
        XCTAssertTrue(phonemes.stdout.contains("v'al"), "the listener's words are not said: \(phonemes)")
        let called = try fixture.openAndHear(book)
        let mill = offset(of: "mill")
        // "windmill of the valley" is four words of espeak-ng's, each the book's "mill".
        XCTAssertNotNil(fixture.waitForSignal("SpeakingRange", since: called, timeout: 20) {
            $0.arguments.count > 2 && Int($0.arguments[1]) == offset(of: "Leibniz")
        }, "narration did not reach Leibniz\(fixture.context)")
        let onMill = fixture.signals("SpeakingRange", since: called).filter {
            $0.arguments.count > 2 && Int($0.arguments[1]) == mill && Int($0.arguments[2]) == 4
        }
        XCTAssertGreaterThanOrEqual(onMill.count, 2, "the replacement's words do not all map to \"mill\"\(fixture.context)")
        _ = try fixture.playerctl("stop")
        try FileManager.default.removeItem(at: config)
        XCTAssertTrue(try fixture.call("io.github.lector.Lector1", "Reload", [], path: PlayerFixture.narratorPath).succeeded)
    }

    /// A passage the book marks in German gets config.toml's [pronunciation.de], not [pronunciation.en].
    func testAPassageInAnotherLanguageGetsThatLanguagesLexicon() throws {
        let text = "He wrote z.B. hier on the wall."
        let book = try writeBook(body: "<p>He wrote <i xml:lang=\"de\">z.B. hier</i> on the wall.</p>", name: "passage.epub")
        let config = URL(fileURLWithPath: fixture.session.environment["XDG_CONFIG_HOME"]! + "/lector/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try """
            [pronunciation.de]
            "z.B." = "zum Beispiel"
            [pronunciation.en]
            wall = "/ʃʃʃ/"
            hier = "wrong"
            """.write(to: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: config) }
        XCTAssertTrue(try fixture.call("io.github.lector.Lector1", "Reload", [], path: PlayerFixture.narratorPath).succeeded)
        let phonemes = try fixture.cli("phonemes", "--book", book.path)
        XCTAssertTrue(phonemes.stdout.contains("b'aISpi:l"), "the German passage's lexicon is not said: \(phonemes.stdout) \(phonemes.stderr)")
        XCTAssertFalse(phonemes.stdout.contains("r'Q"), "\(phonemes.stdout)")
        XCTAssertTrue(phonemes.stderr.contains("\"hier\"") == false, "the English lexicon reached the German passage: \(phonemes.stderr)")
        let called = try fixture.openAndHear(book)
        let zb = Array(text.unicodeScalars).indices.first { String(String.UnicodeScalarView(Array(text.unicodeScalars)[$0..<($0 + 4)])) == "z.B." }!
        XCTAssertNotNil(fixture.waitForSignal("SpeakingRange", since: called, timeout: 20) {
            $0.arguments.count > 2 && Int($0.arguments[1]) == 26 && Int($0.arguments[2]) == 4   // "wall", said as /ʃʃʃ/
        }, "narration did not reach the wall\(fixture.context)")
        let onZB = fixture.signals("SpeakingRange", since: called).filter {
            $0.arguments.count > 2 && Int($0.arguments[1]) == zb && Int($0.arguments[2]) == 4
        }
        XCTAssertGreaterThanOrEqual(onZB.count, 2, "zum Beispiel is not two words on z.B.\(fixture.context)")
        _ = try fixture.playerctl("stop")
        try FileManager.default.removeItem(at: config)
        XCTAssertTrue(try fixture.call("io.github.lector.Lector1", "Reload", [], path: PlayerFixture.narratorPath).succeeded)
    }
}
