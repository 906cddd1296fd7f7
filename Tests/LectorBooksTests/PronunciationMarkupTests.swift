import Foundation
import LectorBooks
import LectorCore
import LectorTestKit
import XCTest

/// EPUB 3 pronunciation (EPUB 3 Text-to-Speech Enhancements): `ssml:ph`/`ssml:alphabet` on
/// content elements reach the chapter as phoneme runs in its text's offsets, and PLS lexicons in
/// the manifest or linked from a document's head reach it as lexicons.
final class PronunciationMarkupTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory?.remove() }

    static let ssml = "http://www.w3.org/2001/10/synthesis"

    func runs(_ chapter: Chapter) -> [String] {
        chapter.pronunciation.phonemeRuns.map { run in
            let scalars = Array(chapter.text.unicodeScalars)[run.range]
            return String(String.UnicodeScalarView(scalars)) + " = " + (run.alphabet ?? "?") + ":" + run.phonemes
        }
    }

    func testSSMLPhonemesOnSpansWithAnInheritedAlphabet() throws {
        let chapter = try PatternBook(directory).open([("c1", """
            <section xmlns:ssml="\(Self.ssml)" ssml:alphabet="ipa">
            <p>Turn <span ssml:ph="saʊθˈiːst">S.E.</span> at the <b>old</b> mill.</p>
            <p ssml:alphabet="x-sampa">Ask <span ssml:ph="h3:&quot;maI@ni">Hermione</span>.</p>
            <p>Nested <span ssml:ph="ˈaʊtɚ">out<span ssml:ph="ɪnɚ">er</span></span> wins.</p>
            </section>
            <p>Outside the namespace <span ssml:ph="x">this</span> is still read: ssml is the usual prefix.</p>
            """)]).loadChapter(0)
        XCTAssertEqual(runs(chapter), [
            "S.E. = ipa:saʊθˈiːst",
            "Hermione = x-sampa:h3:\"maI@ni",
            "outer = ipa:ˈaʊtɚ",
            "this = ?:x",
        ])
    }

    func testAnyPrefixBoundToTheSSMLNamespace() throws {
        let chapter = try PatternBook(directory).open([("c1", """
            <div xmlns:s="\(Self.ssml)"><p>The <abbr s:alphabet="ipa" s:ph="ˈlaɪbnɪts">Leibniz</abbr> rule.</p></div>
            """)]).loadChapter(0)
        XCTAssertEqual(runs(chapter), ["Leibniz = ipa:ˈlaɪbnɪts"])
    }

    static let lexicon = """
        <?xml version="1.0" encoding="UTF-8"?>
        <lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"
                 alphabet="ipa" xml:lang="en">
          <lexeme><grapheme>S.E.</grapheme><grapheme>SE</grapheme><alias>southeast</alias></lexeme>
          <lexeme><grapheme>Hermione</grapheme><phoneme>hɜːˈmaɪəni</phoneme></lexeme>
          <lexeme><grapheme>Tolkien</grapheme><alias>Tol keen</alias>
                  <phoneme alphabet="x-sampa" prefer="true">"tQlki:n</phoneme></lexeme>
          <lexeme><grapheme>nothing</grapheme></lexeme>
        </lexicon>
        """

    func testAPLSLexiconInTheManifest() throws {
        var book = PatternBook(directory)
        book.extraManifest = #"<item id="pls" href="lexicon.pls" media-type="application/pls+xml"/>"#
        book.entries = [("OEBPS/lexicon.pls", Data(Self.lexicon.utf8))]
        let chapter = try book.open([("c1", "<p>Head S.E. from here.</p>")]).loadChapter(0)
        XCTAssertEqual(chapter.pronunciation.lexicons.count, 1)
        let lexicon = try XCTUnwrap(chapter.pronunciation.lexicons.first)
        XCTAssertEqual(lexicon.language, "en")
        XCTAssertEqual(lexicon.name, "OEBPS/lexicon.pls")
        XCTAssertEqual(lexicon.rules, [
            PronunciationRule(match: .word("S.E."), sayings: [.text("southeast")], source: "OEBPS/lexicon.pls"),
            PronunciationRule(match: .word("SE"), sayings: [.text("southeast")], source: "OEBPS/lexicon.pls"),
            PronunciationRule(match: .word("Hermione"), sayings: [.phonemes("hɜːˈmaɪəni", alphabet: "ipa")], source: "OEBPS/lexicon.pls"),
            PronunciationRule(match: .word("Tolkien"), sayings: [.phonemes("\"tQlki:n", alphabet: "x-sampa"), .text("Tol keen")],
                              source: "OEBPS/lexicon.pls"),
        ], "a preferred phoneme first; a lexeme with nothing to say is left out")
        // What the narrator makes of it.
        let prepared = Pronouncer(book: chapter.pronunciation.lexicons, language: "en").prepare(chapter.text)
        XCTAssertEqual(prepared.text, "Head southeast from here.")
    }

    func testALexiconLinkedFromADocumentsHead() throws {
        let document = """
            <?xml version="1.0" encoding="UTF-8"?>
            <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
            <head><title>One</title>
            <link rel="pronunciation" type="application/pls+xml" hreflang="en" href="../lex/words.pls"/></head>
            <body><p>Ask Hermione.</p></body></html>
            """
        let url = directory.url.appendingPathComponent("linked.epub")
        try EPUBWriter.standard(opf: EPUBFixture.opf3(documents: [("c1", "text/c1.xhtml")]))
            .adding("OEBPS/text/c1.xhtml", document)
            .adding("OEBPS/lex/words.pls", Self.lexicon.replacingOccurrences(of: #" xml:lang="en""#, with: ""))
            .write(to: url)
        let chapter = try BookReader.open(url).loadChapter(0)
        let lexicon = try XCTUnwrap(chapter.pronunciation.lexicons.first)
        XCTAssertEqual(lexicon.name, "OEBPS/lex/words.pls")
        XCTAssertEqual(lexicon.language, "en", "the link's hreflang when the lexicon names no language")
        XCTAssertEqual(Pronouncer(book: [lexicon], language: "en").prepare(chapter.text).text, "Ask [[h3:'maI@ni]].")
    }

    func testABrokenOrMissingLexiconIsAWarningNotAFailure() throws {
        var book = PatternBook(directory)
        book.extraManifest = #"<item id="pls" href="broken.pls" media-type="application/pls+xml"/>"#
            + #"<item id="gone" href="gone.pls" media-type="application/pls+xml"/>"#
        book.entries = [("OEBPS/broken.pls", Data("<lexicon><lexeme>".utf8))]
        let chapter = try book.open([("c1", "<p>Plain.</p>")]).loadChapter(0)
        XCTAssertEqual(chapter.text, "Plain.")
        XCTAssertTrue(chapter.pronunciation.lexicons.isEmpty)
        XCTAssertEqual(chapter.warnings.filter { $0.contains("pronunciation lexicon") }.count, 2, "\(chapter.warnings)")
    }

    func testABookWithoutPronunciationHasNone() throws {
        let chapter = try PatternBook(directory).open([("c1", "<p>Plain S.E. text.</p>")]).loadChapter(0)
        XCTAssertTrue(chapter.pronunciation.isEmpty)
    }
}

extension PronunciationMarkupTests {
    /// Markup that mixes phonemes with notes and markers must never yield a range outside the text.
    func testPhonemesAroundNotesAndMarkersStayInsideTheText() throws {
        let chapter = try PatternBook(directory).open([("c1", """
            <div xmlns:ssml="\(Self.ssml)">
            <p ssml:ph="ˈwʌn">One<a epub:type="noteref" href="#n1">1</a> and <span ssml:ph="tuː">two<sup>2</sup></span>.</p>
            <aside epub:type="footnote" id="n1" ssml:ph="nəʊt"><p>A note <span ssml:ph="ɪn">in</span> it.</p></aside>
            <p>After.</p>
            </div>
            """)]).loadChapter(0)
        let count = chapter.text.unicodeScalars.count
        for run in chapter.pronunciation.phonemeRuns {
            XCTAssertLessThanOrEqual(run.range.upperBound, count, "\(runs(chapter)) in \(chapter.text)")
            XCTAssertFalse(run.range.isEmpty)
        }
        XCTAssertTrue(runs(chapter).contains { $0.hasPrefix("One") }, "\(runs(chapter)) in \(chapter.text)")
    }
}

extension PronunciationMarkupTests {
    /// A note read after its paragraph keeps its own ssml:ph, at its place in the chapter.
    func testPhonemesInANoteReadAfterItsParagraph() throws {
        let chapter = try PatternBook(directory).open([("c1", """
            <div xmlns:ssml="\(Self.ssml)" ssml:alphabet="ipa">
            <p>See the mill.<a epub:type="noteref" href="#n1">1</a></p>
            <aside epub:type="footnote" id="n1"><p>Built by <span ssml:ph="ˈlaɪbnɪts">Leibniz</span>.</p></aside>
            <p>After.</p>
            </div>
            """)]).loadChapter(0)
        XCTAssertTrue(chapter.text.contains("Leibniz"), chapter.text)
        XCTAssertEqual(runs(chapter), ["Leibniz = ipa:ˈlaɪbnɪts"], chapter.text)
    }
}
