import Foundation
import LectorTestKit
import XCTest

/// The read-along page for real: the daemon narrating on a private bus and sound server,
/// `lector view --no-browser` serving, and Debian's chromium (headless, through Playwright)
/// showing the page, checked against what the bus says is heard.
final class ReadAlongTests: SharedDaemonTestCase {
    nonisolated(unsafe) private static var servers: [ObjectIdentifier: (ManagedProcess, String)] = [:]
    nonisolated(unsafe) private static var browsers: [ObjectIdentifier: HeadlessBrowser] = [:]

    /// The page's address (with its token), from a view server this class shares.
    private var url: String!
    private var browser: HeadlessBrowser!

    override func setUpWithError() throws {
        try super.setUpWithError()
        let key = ObjectIdentifier(type(of: self))
        if let (server, address) = Self.servers[key], server.isRunning {
            url = address
        } else {
            let (server, address) = try startViewServer()
            Self.servers[key] = (server, address)
            url = address
        }
        if let existing = Self.browsers[key] {
            browser = existing
        } else {
            browser = try HeadlessBrowser(session: fixture.session)
            Self.browsers[key] = browser
        }
    }

    override class func tearDown() {
        browsers.removeValue(forKey: ObjectIdentifier(self))?.close()
        servers.removeValue(forKey: ObjectIdentifier(self))
        super.tearDown()
    }

    /// Where screenshots go: `$LECTOR_TEST_ARTEFACTS`, else .build/test-artefacts in the checkout.
    static let artefacts: URL = {
        let folder = ProcessInfo.processInfo.environment["LECTOR_TEST_ARTEFACTS"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/test-artefacts")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }()

    private func startViewServer(idleExit: Int = 600) throws -> (ManagedProcess, String) {
        try fixture.startViewServer(idleExit: idleExit)
    }

    /// A small EPUB with what a page must render: emphasis, a list, a table, an image, a note
    /// reference, astral characters, and three chapters.
    private func writeBook(named name: String) throws -> URL {
        let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==")!
        let opf = """
            <?xml version="1.0" encoding="UTF-8"?>
            <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
             <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
              <dc:identifier id="id">urn:uuid:readalong-\(name)</dc:identifier><dc:title>Read Along Test</dc:title>
              <dc:creator>Ada Reader</dc:creator><dc:language>en</dc:language>
              <meta property="dcterms:modified">2026-01-01T00:00:00Z</meta>
             </metadata>
             <manifest>
              <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
              <item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/>
              <item id="c2" href="c2.xhtml" media-type="application/xhtml+xml"/>
              <item id="c3" href="c3.xhtml" media-type="application/xhtml+xml"/>
              <item id="pic" href="images/pic.png" media-type="image/png"/>
              <item id="cover" href="images/cover.png" media-type="image/png" properties="cover-image"/>
             </manifest>
             <spine><itemref idref="c1"/><itemref idref="c2"/><itemref idref="c3"/></spine>
            </package>
            """
        let nav = """
            <?xml version="1.0" encoding="UTF-8"?>
            <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head>
            <body><nav epub:type="toc"><ol><li><a href="c1.xhtml">The River</a></li><li><a href="c2.xhtml">The Mill</a></li>
            <li><a href="c3.xhtml">The Sea</a></li></ol></nav></body></html>
            """
        func chapter(_ title: String, _ body: String) -> String {
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>\(title)</title>
            <script>document.title = "owned"</script><style>body { color: red }</style></head>
            <body><h1>\(title)</h1>\(body)</body></html>
            """
        }
        let sentences = (1...12).map { "Sentence \($0) tells how the quiet river runs past the old mill and the green fields." }
        let c1 = chapter("The River", """
            <p>The river 𝔘 runs <em>slowly</em> past the <strong>old mill</strong>, where Mr. Hale the farmer walks. He waves.<sup><a href="#n1" epub:type="noteref">1</a></sup></p>
            <ul><li>First the bridge.</li><li>Then the stones.</li></ul>
            <figure><img src="images/pic.png" alt="A small picture"/><figcaption>A picture of the mill.</figcaption></figure>
            <table><tr><td>Left bank</td><td>Right bank</td></tr></table>
            \(sentences.map { "<p>\($0)</p>" }.joined())
            <aside epub:type="footnote" id="n1"><p>A note about the mill.</p></aside>
            """)
        let c2 = chapter("The Mill", "<p>The mill stands by the water. Its wheel turns all day long.</p>")
        let c3 = chapter("The Sea", "<p>At last the river reaches the sea. That is the end.</p>")
        let writer = EPUBWriter.standard(opf: opf)
            .adding("OEBPS/nav.xhtml", nav).adding("OEBPS/c1.xhtml", c1).adding("OEBPS/c2.xhtml", c2)
            .adding("OEBPS/c3.xhtml", c3).adding("OEBPS/images/pic.png", png).adding("OEBPS/images/cover.png", png)
        let folder = fixture.session.directory.appendingPathComponent("books", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        _ = try writer.write(to: file)
        return file
    }

    private func chapterText(_ chapter: Int) throws -> [Unicode.Scalar] { try fixture.chapterText(chapter) }

    private func slice(_ text: [Unicode.Scalar], _ start: Int, _ length: Int) -> String { PlayerFixture.slice(text, start, length) }

    /// Opens the page and waits until it shows `chapter`.
    private func openPage(showing chapter: Int) throws {
        try browser.open(url)
        try browser.waitFor("window.lectorView.view.chapter === \(chapter)", timeout: 15)
    }

    private var diagnostics: String {
        "\nbrowser console: \(browser.console().suffix(20))\(fixture.context)"
    }

    // MARK: - Showing and following

    func testThePageShowsTheBookAndHighlightsEachWordAsItIsHeard() throws {
        let book = try writeBook(named: "follow.epub")
        let since = try fixture.openAndHear(book)
        try openPage(showing: 0)

        // The book, its chapters, its cover and its image.
        XCTAssertEqual(try browser.eval("document.getElementById('book-title').textContent") as? String, "Read Along Test")
        XCTAssertEqual(try browser.eval("document.getElementById('book-authors').textContent") as? String, "Ada Reader")
        XCTAssertEqual(try browser.eval("document.querySelectorAll('#chapters button').length") as? Int, 3, diagnostics)
        try browser.waitFor("document.getElementById('cover').complete && document.getElementById('cover').naturalWidth > 0")
        try browser.waitFor("[...document.querySelectorAll('#chapter img')].every((i) => i.complete && i.naturalWidth > 0) "
                            + "&& document.querySelectorAll('#chapter img').length === 1")
        XCTAssertEqual(try browser.eval("document.querySelector('#chapter em').textContent.trim()") as? String, "slowly")
        XCTAssertEqual(try browser.eval("document.querySelectorAll('#chapter li').length") as? Int, 2)
        XCTAssertEqual(try browser.eval("document.querySelectorAll('#chapter td').length") as? Int, 2)
        // The book's script never ran and its style is not applied; no element carries a handler.
        XCTAssertEqual(try browser.eval("document.title") as? String, "Read Along Test: Lector")
        XCTAssertEqual(try browser.eval("document.querySelectorAll('#chapter script, #chapter style').length") as? Int, 0)

        // Every word highlighted is the word the bus said is heard, at its offsets.
        let text = try chapterText(0)
        try fixture.assertPageHighlightsHeardWords(browser, chapter: 0, text: text, since: since, atLeast: 12, timeout: 20,
                                                   diagnostics: diagnostics)

        // The highlight in place now is the last word announced (pause, then compare).
        let (start, length) = try fixture.pauseAndAssertHighlightOnLastWord(browser, text: text, since: since, diagnostics: diagnostics)
        // Artefacts to look at: the page in the light and the high-contrast theme.
        try browser.screenshot(Self.artefacts.appendingPathComponent("read-along-light.png").path)
        _ = try browser.eval("(() => { const t = document.getElementById('theme'); t.value = 'contrast'; t.dispatchEvent(new Event('change')); })()")
        try browser.screenshot(Self.artefacts.appendingPathComponent("read-along-contrast.png").path)
        _ = try browser.eval("(() => { const t = document.getElementById('theme'); t.value = 'light'; t.dispatchEvent(new Event('change')); })()")
        let sentence = try XCTUnwrap(browser.eval("[...CSS.highlights.get('lector-sentence')][0].toString()") as? String)
        XCTAssertTrue(sentence.contains(slice(text, start, length)), "the sentence \"\(sentence)\" holds the word")

        // The sentence marked is the one narration reads: an abbreviation does not end it.
        let chapter = String(String.UnicodeScalarView(text))
        for (word, expected) in [("Hale", "The river 𝔘 runs slowly past the old mill, where Mr. Hale the farmer walks."),
                                 ("waves", "He waves.")] {
            let offset = try XCTUnwrap(chapter.range(of: word)).lowerBound.samePosition(in: chapter.unicodeScalars)
                .map { chapter.unicodeScalars.distance(from: chapter.unicodeScalars.startIndex, to: $0) }
            XCTAssertEqual(try browser.eval("window.lectorView.sentenceText(\(try XCTUnwrap(offset)))") as? String, expected, diagnostics)
        }
    }

    /// Nothing above the header on a wide window: the icon sprite (an SVG element, which the
    /// `hidden` attribute does not hide) once took a 300×150 box at the top of the page.
    func testTheHeaderStartsAtTheTopAndItsIconsShow() throws {
        let book = try writeBook(named: "layout.epub")
        _ = try fixture.openAndHear(book)
        try browser.setViewport(width: 1100, height: 900)
        defer { try? browser.setViewport(width: 1200, height: 800) }   // the browser is shared
        try openPage(showing: 0)
        XCTAssertEqual(try browser.eval("scrollY") as? Int, 0)
        let top = try XCTUnwrap(browser.eval("document.querySelector('header.bar').getBoundingClientRect().top") as? Double)
        XCTAssertLessThanOrEqual(abs(top), 2, "the header's top on an unscrolled 1100×900 page\(diagnostics)")
        // The sprite takes no room, yet the buttons' icons it holds still draw.
        XCTAssertEqual(try browser.eval("(() => { const r = document.getElementById('icon-play').closest('svg').getBoundingClientRect();"
                                        + " return r.width * r.height; })()") as? Int, 0)
        for button in ["previous", "play", "next"] {
            let size = try XCTUnwrap(browser.eval("(() => { const b = document.querySelector('#\(button) use').getBBox();"
                                                  + " return b.width * b.height; })()") as? Double)
            XCTAssertGreaterThan(size, 0, "the \(button) icon draws")
        }
        try browser.screenshot(Self.artefacts.appendingPathComponent("read-along-1100x900.png").path)
    }

    func testClickingAWordReadsFromThatWord() throws {
        let book = try writeBook(named: "click.epub")
        _ = try fixture.openAndHear(book)
        try openPage(showing: 0)
        let text = try chapterText(0)
        let target = "Sentence 9"
        let string = String(String.UnicodeScalarView(text))
        let range = try XCTUnwrap(string.range(of: target))
        let offset = string.unicodeScalars.distance(from: string.unicodeScalars.startIndex, to: range.lowerBound)
        let clicked = Date()
        try browser.clickText(offset: offset + 2)   // inside the word
        let first = try XCTUnwrap(fixture.waitForSignal("SpeakingRange", since: clicked, timeout: 10) { signal in
            Int(signal.arguments[1]).map { $0 >= offset - 20 } ?? false
        }, "no word heard after the click\(diagnostics)")
        XCTAssertEqual(Int(first.arguments[1]), offset, "narration goes on from the clicked word's start\(diagnostics)")
        XCTAssertEqual(try fixture.status(), "Playing")

        // From the keyboard: Ctrl+arrows move a word cursor from the heard word, Enter reads from it.
        try fixture.playerctl("pause")
        try browser.waitFor("document.getElementById('play').getAttribute('aria-label') === 'Play'")
        try browser.focus("#page")
        for _ in 0..<3 { try browser.press("Control+ArrowRight") }
        let cursor = try XCTUnwrap(browser.eval("window.lectorView.view.cursor") as? Int, "a word cursor\(diagnostics)")
        let word = try XCTUnwrap(browser.eval("[...CSS.highlights.get('lector-cursor')][0].toString()") as? String)
        XCTAssertEqual(slice(text, cursor, word.unicodeScalars.count), word, "the cursor sits on a word of the text")
        XCTAssertTrue(cursor == 0 || text[cursor - 1].properties.isWhitespace, "the cursor is at a word's start: \(word)")
        let entered = Date()
        try browser.press("Enter")
        let seeked = try XCTUnwrap(fixture.waitForSignal("Seeked", since: entered, timeout: 10), "Enter moved narration\(diagnostics)")
        XCTAssertNotNil(seeked)
        try fixture.playerctl("play")
        let heard = try XCTUnwrap(fixture.waitForSignal("SpeakingRange", since: entered, timeout: 10))
        XCTAssertEqual(Int(heard.arguments[1]), cursor, "narration goes on from the word chosen with the keyboard")
    }

    func testControlsKeysAndTheNextChapterRenderingByItself() throws {
        let book = try writeBook(named: "controls.epub")
        _ = try fixture.openAndHear(book)
        try openPage(showing: 0)

        try browser.focus("#page")
        try browser.press(" ")
        XCTAssertTrue(poll(timeout: 5) { (try? self.fixture.status()) == "Paused" }, "Space pauses\(diagnostics)")
        try browser.press(" ")
        XCTAssertTrue(poll(timeout: 5) { (try? self.fixture.status()) == "Playing" }, "Space plays again")

        try browser.click("#next")
        try browser.waitFor("window.lectorView.view.chapter === 1", timeout: 10)
        XCTAssertEqual(try fixture.trackNumber(), 2)
        XCTAssertEqual(try browser.eval("document.querySelector('#chapter h1').textContent") as? String, "The Mill")
        XCTAssertEqual(try browser.eval("document.querySelector('#chapters [aria-current=true]').textContent") as? String, "The Mill")

        // A media key elsewhere shows on the page.
        try fixture.playerctl("pause")
        try browser.waitFor("document.getElementById('play').getAttribute('aria-label') === 'Play'")
        try fixture.playerctl("play")
        try browser.waitFor("document.getElementById('play').getAttribute('aria-label') === 'Pause'")

        // The chapter ends; the page shows the next by itself.
        try browser.waitFor("window.lectorView.view.chapter === 2", timeout: 20)
        XCTAssertEqual(try browser.eval("document.querySelector('#chapter h1').textContent") as? String, "The Sea")

        // A book opened elsewhere (the CLI) appears in the open page.
        let other = try TextBooks.write(["Another book entirely, read from the command line."], named: "other.txt",
                                        in: fixture.session.directory)
        let read = try fixture.cli("read", other.path)
        XCTAssertEqual(read.status, 0, "\(read)")
        try browser.waitFor("document.getElementById('book-title').textContent === 'other'", timeout: 10)
        try browser.waitFor("window.lectorView.view.article.textContent.includes('Another book entirely')")

        // Display settings are remembered across visits.
        _ = try browser.eval("(() => { const t = document.getElementById('theme'); t.value = 'contrast'; t.dispatchEvent(new Event('change'));"
                             + " const f = document.getElementById('font-size'); f.value = '250'; f.dispatchEvent(new Event('input')); })()")
        try browser.open(url)
        try browser.waitFor("document.documentElement.dataset.theme === 'contrast'")
        XCTAssertEqual(try browser.eval("getComputedStyle(document.documentElement).getPropertyValue('--font-scale').trim()") as? String, "2.5")

        // Rate from the page reaches MPRIS.
        _ = try browser.eval("(() => { const r = document.getElementById('rate'); r.value = '1.5'; r.dispatchEvent(new Event('change')); })()")
        XCTAssertTrue(poll(timeout: 5) { (try? self.fixture.double("Rate")) == 1.5 }, "rate from the page")
    }

    func testScrollingAwayStopsFollowingUntilTheListenerComesBack() throws {
        let book = try writeBook(named: "scroll.epub")
        _ = try fixture.openAndHear(book)
        try openPage(showing: 0)
        try browser.waitFor("window.lectorView.metrics.ranges.length > 0", timeout: 10)
        try browser.scroll(by: 2000)
        try browser.waitFor("!window.lectorView.view.following && !document.getElementById('follow').hidden")
        // The wheel's smooth scroll has come to rest (a listener still scrolling is not following).
        _ = try browser.eval("new Promise((done) => { let t = setTimeout(done, 400, true);"
                             + " addEventListener('scroll', () => { clearTimeout(t); t = setTimeout(done, 400, true); }); })")
        try browser.click("#follow")
        try browser.waitFor("window.lectorView.view.following && document.getElementById('follow').hidden")
    }

    func testThePageSaysWhenLectorIsNotRunningAndFollowsItBack() throws {
        let book = try writeBook(named: "restart.epub")
        _ = try fixture.openAndHear(book)
        try openPage(showing: 0)
        fixture.daemon.terminate()
        try browser.waitFor("!document.getElementById('offline').hidden", timeout: 10)
        XCTAssertEqual(try browser.eval("document.getElementById('offline-title').textContent") as? String, "Lector is not running")
        try fixture.startDaemon()
        try fixture.open(book, chapter: 1)
        try browser.waitFor("document.getElementById('offline').hidden && window.lectorView.view.chapter === 1", timeout: 15)
    }

    func testBadRequestsGetNamedErrorsAndThePageShowsThem() throws {
        let book = try writeBook(named: "bad.epub")
        _ = try fixture.openAndHear(book)
        try openPage(showing: 0)
        let chapter = try fixture.call(PlayerFixture.narrator, "SeekToText", ["99", "0"], path: PlayerFixture.narratorPath)
        fixture.assertError(chapter, "InvalidArgument", "SeekToText to chapter 99")
        let offset = try fixture.call(PlayerFixture.narrator, "SeekToText", ["0", "999999"], path: PlayerFixture.narratorPath)
        fixture.assertError(offset, "InvalidArgument", "SeekToText past the chapter's end")
        let markup = try fixture.call(PlayerFixture.narrator, "GetChapterMarkup", ["99"], path: PlayerFixture.narratorPath)
        fixture.assertError(markup, "InvalidArgument", "GetChapterMarkup of chapter 99")
        let resource = try fixture.call(PlayerFixture.narrator, "GetResource", ["'c1'"], path: PlayerFixture.narratorPath)
        fixture.assertError(resource, "NotFound", "GetResource of a content document")
        XCTAssertEqual(try fixture.status(), "Playing", "nothing changed")

        _ = try browser.eval("window.lectorView.control({action: 'seekToText', chapter: 99, offset: 0})")
        let shown = try XCTUnwrap(browser.waitFor("document.getElementById('status').textContent.includes('chapter') "
                                                  + "&& document.getElementById('status').textContent") as? String)
        XCTAssertTrue(shown.contains("99") || shown.contains("100"), "the page names the chapter: \(shown)")
        let unknown = try browser.request(try XCTUnwrap(url.range(of: "/?token=").map { String(url[..<$0.lowerBound]) })
                                          + "/api/control", method: "POST", headers: ["Content-Type": "application/json"],
                                          body: #"{"action":"frobnicate"}"#)
        XCTAssertEqual(unknown.status, 400, unknown.body)
    }

    // MARK: - Voices

    /// Narrator1.BookVoices: (name, language, engine, quality) each.
    private func bookVoices() throws -> [[String]] {
        let value = try fixture.property("BookVoices", interface: PlayerFixture.narrator, path: PlayerFixture.narratorPath)
        guard value.type == "a(ssss)", let rows = value.data as? [[Any]] else { throw FixtureError("BookVoices is \(value)") }
        return rows.map { $0.compactMap { $0 as? String } }
    }

    private func narrationVoice() throws -> String {
        try XCTUnwrap(fixture.property("Voice", interface: PlayerFixture.narrator, path: PlayerFixture.narratorPath).data as? String)
    }

    /// The voice picker lists the book's voices as the bus does, each with its engine, the one
    /// reading selected; the keyboard picks another, which reads on from the word being heard;
    /// a voice the daemon refuses is a 400 and the page says why; a book only one voice reads
    /// shows that voice, not as a choice. (With a neural voice: NeuralReadAlongTests.)
    func testThePagesVoicePickerOffersTheBooksVoicesAndTheKeyboardPicksOne() throws {
        let book = try writeBook(named: "voices.epub")
        let opened = try fixture.openAndHear(book)
        try openPage(showing: 0)
        try browser.waitFor("document.querySelectorAll('#voice option').length > 1 && !document.getElementById('voice-field').hidden")
        let voices = try bookVoices()
        let options = try XCTUnwrap(browser.eval("[...document.querySelectorAll('#voice option')].map((o) => [o.value, o.textContent])")
                                    as? [[String]])
        XCTAssertEqual(options.map { $0[0] }, voices.map { $0[0] }, diagnostics)
        for (option, voice) in zip(options, voices) {
            let engine = voice[2] == "piper" ? " (\(voice[1])) — natural (Piper)" : " — espeak-ng"
            XCTAssertEqual(option[1], voice[0] + engine, "the option says the voice's engine")
        }
        XCTAssertEqual(try browser.eval("document.getElementById('voice').value") as? String, try narrationVoice())
        XCTAssertEqual(try browser.eval("document.getElementById('voice').labels[0].textContent.trim()") as? String, "Voice")

        // The keyboard: End picks the last voice (espeak-ng's, by name), sent once the listener rests on it.
        let before = try narrationVoice()
        let last = try XCTUnwrap(voices.last?[0])
        XCTAssertNotEqual(last, before, "the last voice is another one: \(voices)")
        let heard = fixture.lastHeardOffset(since: opened) ?? 0
        try browser.focus("#voice")
        let picked = Date()
        try browser.press("End")
        XCTAssertTrue(try poll(timeout: 5) { try self.narrationVoice() == last }, "Narrator1.Voice is \((try? narrationVoice()) ?? "?")\(diagnostics)")
        XCTAssertTrue(poll(timeout: 10) { self.fixture.signals("SpeakingRange", since: picked).count >= 3 },
                      "narration did not go on in the new voice\(diagnostics)")
        let next = try XCTUnwrap(fixture.signals("SpeakingRange", since: picked).compactMap { Int($0.arguments[1]) }.first)
        XCTAssertGreaterThanOrEqual(next, heard, "the new voice went back")
        XCTAssertEqual(try fixture.status(), "Playing")
        XCTAssertEqual(try browser.eval("document.activeElement.id") as? String, "voice", "the picker keeps the focus")

        // Refused by the daemon (no such voice): a 400 with its message, shown by the page, and the
        // picker goes back to the voice reading; malformed: a 400 before the bus.
        let base = try XCTUnwrap(url.range(of: "/?token=").map { String(url[..<$0.lowerBound]) })
        let unknown = try browser.request(base + "/api/control", method: "POST", headers: ["Content-Type": "application/json"],
                                          body: #"{"action":"voice","voice":"no-such-voice"}"#)
        XCTAssertEqual(unknown.status, 400, unknown.body)
        XCTAssertTrue(unknown.body.contains("no installed voice is named") && unknown.body.contains("UnknownVoice"), unknown.body)
        for bad in [#"{"action":"voice","voice":""}"#, #"{"action":"voice"}"#, #"{"action":"voice","voice":"a\u0000b"}"#] {
            let answer = try browser.request(base + "/api/control", method: "POST", headers: ["Content-Type": "application/json"], body: bad)
            XCTAssertEqual(answer.status, 400, "\(bad): \(answer.body)")
        }
        _ = try browser.eval("""
            (() => { const s = document.getElementById('voice'); const o = document.createElement('option');
                     o.value = 'no-such-voice'; s.append(o); s.value = 'no-such-voice'; s.dispatchEvent(new Event('change')); })()
            """)
        let shown = try XCTUnwrap(browser.waitFor("document.getElementById('status').textContent.includes('no installed voice') "
                                                  + "&& document.getElementById('status').textContent") as? String)
        XCTAssertTrue(shown.contains("no-such-voice"), shown)
        try browser.waitFor("document.getElementById('voice').value === \(try jsString(last))", timeout: 5)
        XCTAssertEqual(try narrationVoice(), last, "a refused voice changed nothing")
        XCTAssertTrue(fixture.daemon.isRunning)

        // A book only one voice reads (espeak-ng's Esperanto): shown, not a choice.
        let esperanto = fixture.session.directory.appendingPathComponent("esperanto.epub")
        _ = try EPUBWriter.chapters(1, identifier: "urn:uuid:readalong-eo", title: "Esperanto", language: "eo") { _ in
            "<p>La suno brilas super la maro, kaj la birdoj kantas en la arboj.</p>"
        }.write(to: esperanto)
        _ = try fixture.openAndHear(esperanto)
        XCTAssertEqual(try bookVoices().map { $0[0] }, ["Esperanto"])
        try browser.waitFor("document.getElementById('book-title').textContent === 'Esperanto'", timeout: 10)
        try browser.waitFor("document.getElementById('voice').disabled && document.getElementById('voice').value === 'Esperanto'")
        XCTAssertFalse(try XCTUnwrap(browser.eval("document.getElementById('voice-field').hidden") as? Bool), "the voice is shown")
    }

    /// `text` as a JavaScript string literal.
    private func jsString(_ text: String) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: [text]), as: UTF8.self).dropFirst().dropLast().description
    }

    // MARK: - Security

    /// A raw request from outside the browser (no cookie), with the headers a rebinding page or
    /// another local program would send.
    private func rawRequest(_ path: String, host: String? = nil, origin: String? = nil,
                            method: String = "GET") throws -> (status: Int, headers: String) {
        let base = try XCTUnwrap(url.range(of: "/?token=").map { String(url[..<$0.lowerBound]) })
        let script = """
            import http.client, sys, urllib.parse
            u = urllib.parse.urlparse(sys.argv[1])
            c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
            c.putrequest(sys.argv[3], sys.argv[2], skip_host=True)
            c.putheader("Host", sys.argv[4] or u.netloc)
            if sys.argv[5]: c.putheader("Origin", sys.argv[5])
            c.putheader("Content-Length", "2")
            c.endheaders(b"{}")
            r = c.getresponse()
            print(r.status)
            print(r.getheaders())
            """
        let result = try fixture.session.run("python3", ["-c", script, base, path, method, host ?? "", origin ?? ""], timeout: 15)
        let lines = result.stdout.split(separator: "\n")
        return (Int(lines.first ?? "") ?? -1, lines.dropFirst().joined())
    }

    func testOnlyThePageWithItsTokenGetsInAndNothingForeignRuns() throws {
        let book = try writeBook(named: "security.epub")
        _ = try fixture.openAndHear(book)
        let token = try XCTUnwrap(url.components(separatedBy: "token=").last)
        XCTAssertEqual(try rawRequest("/api/state").status, 403, "no token")
        XCTAssertEqual(try rawRequest("/?token=\(String(token.reversed()))").status, 403, "a wrong token")
        let port = try XCTUnwrap(URLComponents(string: url)?.port)
        XCTAssertEqual(try rawRequest("/?token=\(token)", host: "attacker.example:\(port)").status, 403, "DNS rebinding: a foreign Host")
        XCTAssertEqual(try rawRequest("/api/control", origin: "http://attacker.example", method: "POST").status, 403,
                       "a foreign Origin")
        let first = try rawRequest("/?token=\(token)")
        XCTAssertEqual(first.status, 303, "the token in the URL: the cookie is set and the address bar cleaned")
        XCTAssertTrue(first.headers.contains("SameSite=Strict") && first.headers.contains("HttpOnly"), first.headers)
        XCTAssertTrue(first.headers.contains("script-src 'self'"), "Content-Security-Policy: \(first.headers)")

        // Resources only by manifest id, never a path.
        try openPage(showing: 0)
        let base = try XCTUnwrap(url.range(of: "/?token=").map { String(url[..<$0.lowerBound]) })
        XCTAssertEqual(try browser.request(base + "/resource/pic").status, 200)
        for hostile in ["/resource/..%2F..%2F..%2Fetc%2Fpasswd", "/resource/c1", "/resource/nosuch", "/../../etc/passwd"] {
            let answer = try browser.request(base + hostile)
            XCTAssertNotEqual(answer.status, 200, "\(hostile) must not be served: \(answer.body.prefix(200))")
            XCTAssertFalse(answer.body.contains("root:"), hostile)
        }
        XCTAssertEqual(try browser.eval("document.querySelectorAll('#chapter [onclick], #chapter a[href], #chapter [style]').length") as? Int, 0)
    }

    // MARK: - Following the narrator only while a page is open

    func testWithNoPageOpenTheNarratorsChangesWakeNothingAndAPageOpenedThenShowsWhereItIs() throws {
        let key = ObjectIdentifier(type(of: self))
        Self.servers.removeValue(forKey: key)?.0.terminate()   // its page may still be open in the shared browser
        let (server, address) = try startViewServer()
        Self.servers[key] = (server, address)
        let book = try writeBook(named: "unwatched.epub")
        _ = try fixture.openAndHear(book)

        // Pauses and plays with no page: each changes PlaybackStatus (and more) on the bus; the
        // server's threads, all of them, sleep through it. Following, each change cost about a
        // dozen wakeups (the properties read back, hopping between its loop and NIO's threads).
        let before = try Self.contextSwitches(server.pid)
        for member in ["Pause", "Play", "Pause"] {
            let answer = try fixture.call(PlayerFixture.player, member)
            XCTAssertTrue(answer.succeeded, "\(answer)")
            Thread.sleep(forTimeInterval: 0.3)
        }
        let after = try Self.contextSwitches(server.pid)
        XCTAssertLessThanOrEqual(after - before, 1, "the server woke \(after - before) times for a narrator no page shows")

        // A page opened now shows the book as it is now, not as it was when the server last read it.
        let page = try HeadlessBrowser(session: fixture.session)
        defer { page.close() }
        try page.open(address)
        try page.waitFor("window.lectorView.view.snapshot && window.lectorView.view.snapshot.status === 'Paused' "
                         + "&& document.getElementById('book-title').textContent === 'Read Along Test'", timeout: 15)
        // Followed again while it is open: a Play reaches it.
        XCTAssertTrue(try fixture.call(PlayerFixture.player, "Play").succeeded)
        try page.waitFor("window.lectorView.view.snapshot.status === 'Playing'", timeout: 10)
    }

    /// Voluntary and involuntary context switches of every thread of `pid`: each wakeup counts.
    private static func contextSwitches(_ pid: Int32) throws -> Int {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        return tasks.reduce(0) { total, task in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
            return total + status.split(separator: "\n").filter { $0.contains("ctxt_switches") }
                .compactMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") }.reduce(0, +)
        }
    }

    // MARK: - Raise and the server's life

    func testTheServerLeavesAfterItsLastPageAndRaiseStartsItAgain() throws {
        let key = ObjectIdentifier(type(of: self))
        Self.servers.removeValue(forKey: key)?.0.terminate()
        let viewName = "io.github.lector.View1"
        XCTAssertTrue(poll(timeout: 5) { (try? self.fixture.session.busNameHasOwner(viewName)) == false })

        // Serving while a page is open; gone a little after it closed.
        let (server, address) = try startViewServer(idleExit: 3)
        let page = try HeadlessBrowser(session: fixture.session)
        try page.open(address)
        try page.waitFor("document.getElementById('book-title') !== null")
        XCTAssertFalse(poll(timeout: 5) { !server.isRunning }, "the server stays while its page is open")
        page.close()
        XCTAssertNotNil(server.waitForExit(timeout: 15), "the server exits after its last page closed: \(server.output)")
        XCTAssertEqual(server.exitStatus, 0, server.output)

        // MPRIS Raise (CanRaise) starts it again, through `lector view`; a second `lector view`
        // finds it rather than starting another.
        XCTAssertTrue(try fixture.bool("CanRaise", interface: PlayerFixture.root))
        let raised = try fixture.call(PlayerFixture.root, "Raise")
        XCTAssertTrue(raised.succeeded, "\(raised)")
        XCTAssertTrue(poll(timeout: 15) { (try? self.fixture.session.busNameHasOwner(viewName)) == true },
                      "Raise started the read-along server\(fixture.context)")
        let again = try fixture.session.run(fixture.lector, ["view", "--no-browser"], timeout: 15)
        XCTAssertEqual(again.status, 0, "\(again)")
        XCTAssertTrue(again.stdout.hasPrefix("http://127.0.0.1:"), "\(again)")
    }
}
