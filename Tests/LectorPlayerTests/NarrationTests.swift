import Foundation
import LectorTestKit
import XCTest

/// Volume, chapter changes seen by followers, opening (good and bad books), SpeakingRange, the CLI.
final class NarrationTests: SharedDaemonTestCase {
    /// Volume of the sink input whose properties contain `media.name = "<name>"`, from `pactl list sink-inputs`.
    private func sinkInputVolume(named name: String) throws -> (volume: Int, role: String?)? {
        let result = try fixture.session.run("pactl", ["list", "sink-inputs"], timeout: 5)
        guard result.succeeded else { throw FixtureError("pactl list sink-inputs: \(result)") }
        for block in result.stdout.components(separatedBy: "Sink Input #").dropFirst()
        where block.contains("media.name = \"\(name)\"") {
            guard let volume = PlayerFixture.capture(#"Volume: [a-z-]+: +([0-9]+) /"#, in: block).flatMap(Int.init) else {
                throw FixtureError("no volume in \(block)")
            }
            return (volume, PlayerFixture.capture(#"media\.role = "([^"]*)""#, in: block))
        }
        return nil
    }

    /// The loudest sample heard in the next `seconds`.
    private func peak(over seconds: TimeInterval) -> Int {
        let start = Date()
        Thread.sleep(forTimeInterval: seconds)
        return fixture.recording.peakAmplitude(after: start)
    }

    /// MPRIS Volume scales narration's own samples: heard at half amplitude, while the server's
    /// stream volume (the listener's, saved per role by the server) is left alone.
    func testVolumeScalesNarrationWithoutTouchingTheServersStreamVolume() throws {
        let book = try BookFixtures.require(BookFixtures.wasteland)
        try fixture.openAndHear(book, chapter: 1)
        let before = try XCTUnwrap(try sinkInputVolume(named: "Lector narration"), "no narration sink input")
        XCTAssertEqual(before.role, "music", "the narration stream's media.role")
        let full = peak(over: 2)

        let since = Date()
        XCTAssertTrue(try fixture.playerctl("volume", "0.5").succeeded)
        XCTAssertEqual(try fixture.double("Volume"), 0.5, accuracy: 0.0001)
        XCTAssertEqual(Double(try fixture.playerctl("volume").stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1,
                       0.5, accuracy: 0.0001)
        XCTAssertNotNil(fixture.waitForChange("Volume", since: since, timeout: 2) { $0 == "0.5" }, fixture.context)
        Thread.sleep(forTimeInterval: 0.1)
        let half = peak(over: 2)
        XCTAssertGreaterThan(half, 0, "still heard at half volume\(fixture.context)")
        XCTAssertEqual(Double(half) / Double(full), 0.5, accuracy: 0.12, "peaks \(full) -> \(half)")
        XCTAssertEqual(try sinkInputVolume(named: "Lector narration")?.volume, before.volume)
        XCTAssertEqual(try fixture.status(), "Playing")

        XCTAssertTrue(try fixture.playerctl("volume", "1").succeeded)
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(Double(peak(over: 2)) / Double(full), 1, accuracy: 0.12, "volume 1 restores full amplitude")
    }

    func testFollowersSeeChapterChangesByNextAndByTheEndOfAChapter() throws {
        let wasteland = try BookFixtures.require(BookFixtures.wasteland)
        try fixture.openAndHear(wasteland, chapter: 0)
        let follow = try fixture.session.spawn("playerctl", ["-p", "lector", "metadata", "--follow", "--format",
                                                             "{{xesam:trackNumber}} {{xesam:title}}"])
        defer { follow.terminate(grace: 1) }
        func lines() -> [String] { follow.standardOutput.split(separator: "\n").map(String.init) }
        XCTAssertTrue(poll(timeout: 5) { lines().contains("1 The Waste Land") }, "follow printed \(follow.output)")

        XCTAssertTrue(try fixture.playerctl("next").succeeded)
        XCTAssertTrue(poll(timeout: 3) { lines().last == "2 I. THE BURIAL OF THE DEAD" },
                      "follow after next printed \(lines())\(fixture.context)")

        // A text book of short chapters: the first one ends by itself and the second follows.
        let book = try TextBooks.write(TextBooks.threeShortChapters, named: "three.txt", in: fixture.session.directory)
        let opened = try fixture.openAndHear(book)
        XCTAssertEqual(try fixture.trackNumber(), 1)
        XCTAssertTrue(poll(timeout: 3) { lines().last == "1 Chapter 1" }, "follow printed \(lines())")
        let change = try XCTUnwrap(fixture.waitForChange("Metadata", since: opened, timeout: 15) { $0.contains("'xesam:trackNumber': <2>") },
                                   "chapter 1 never ended into chapter 2\(fixture.context)")
        XCTAssertTrue(poll(timeout: 3) { lines().contains("2 Chapter 2") }, "follow printed \(lines())")
        XCTAssertEqual(try fixture.status(), "Playing", "the next chapter plays on")
        XCTAssertNotNil(fixture.sound(after: change.receivedAt.addingTimeInterval(0.1), timeout: 3),
                        "nothing heard of chapter 2\(fixture.context)")
        XCTAssertTrue(fixture.signals("Seeked", since: opened).isEmpty, "a chapter end is not a Seeked")
        XCTAssertTrue(follow.isRunning, follow.output)
    }

    func testTheLastChapterEndsTheBookAndPlayStartsItOver() throws {
        let book = try TextBooks.write(TextBooks.threeShortChapters.map { $0 + " Again." }, named: "end.txt",
                                       in: fixture.session.directory)
        let opened = try fixture.openAndHear(book, chapter: 2)
        XCTAssertTrue(try poll(timeout: 15) { try fixture.status() == "Stopped" }, "the last chapter never ended\(fixture.context)")
        XCTAssertNotNil(fixture.waitForChange("PlaybackStatus", since: opened, timeout: 1) { $0 == "'Stopped'" }, fixture.context)
        XCTAssertEqual(try fixture.trackNumber(), 3)
        XCTAssertTrue(fixture.recording.waitForSilence(quiet: 0.5, timeout: 3))
        let since = Date()
        XCTAssertTrue(try fixture.playerctl("play").succeeded)
        XCTAssertTrue(try poll(timeout: 3) { try fixture.trackNumber() == 1 }, "Play after the end starts the book over")
        XCTAssertNotNil(fixture.sound(after: since, timeout: 3), fixture.context)
    }

    func testOpenUriPlaysAndBadBooksAreRefusedWithoutDisturbingTheBookBeingRead() throws {
        let book = try BookFixtures.require(BookFixtures.childrensLiterature)
        let directory = fixture.session.directory.appendingPathComponent("bad", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)

        let since = Date()
        let open = try fixture.playerctl("open", book.absoluteString)
        XCTAssertTrue(open.succeeded, "\(open)")
        XCTAssertTrue(try poll(timeout: 10) { try fixture.status() == "Playing" }, "OpenUri did not play\(fixture.context)")
        XCTAssertNotNil(fixture.sound(after: since, timeout: 5), "OpenUri: not heard\(fixture.context)")
        XCTAssertEqual(try fixture.metadata()["xesam:album"]?.data as? String, "Children's Literature")
        let trackID = try fixture.trackID()

        let http = try fixture.call(PlayerFixture.player, "OpenUri", [PlayerFixture.quoted("http://example.com/x.epub")])
        fixture.assertError(http, "InvalidArgument", "OpenUri http://")

        let missing = directory.appendingPathComponent("missing.epub")
        fixture.assertError(try fixture.openCall(missing.absoluteString), "NotFound", "Open of a missing file")

        let random = directory.appendingPathComponent("random.epub")
        var generator = SystemRandomNumberGenerator()
        try Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: random)
        let truncated = directory.appendingPathComponent("truncated.epub")
        let whole = try Data(contentsOf: try BookFixtures.require(BookFixtures.wasteland))
        try whole.prefix(whole.count / 2).write(to: truncated)
        let empty = directory.appendingPathComponent("empty.txt")
        try Data().write(to: empty)

        for bad in [directory, random, truncated, empty] {
            let called = Date()
            let result = try fixture.openCall(bad.absoluteString)
            fixture.assertError(result, "BadBook", "Open of \(bad.lastPathComponent)")
            XCTAssertTrue(result.stderr.contains(bad.path), "the message must name the file: \(result.stderr)")
            XCTAssertEqual(try fixture.status(), "Playing", "after Open of \(bad.lastPathComponent)\(fixture.context)")
            XCTAssertEqual(try fixture.trackID(), trackID, "after Open of \(bad.lastPathComponent)")
            XCTAssertNotNil(fixture.sound(after: called.addingTimeInterval(0.2), timeout: 3),
                            "silent after Open of \(bad.lastPathComponent)\(fixture.context)")
        }
        XCTAssertTrue(fixture.daemon.isRunning, fixture.context)
    }

    /// `lector read` of the book already being read (no --from-start) continues where it is:
    /// the bookmark to resume from is the current point, not the last periodic save.
    func testReopeningTheBookBeingReadContinuesWhereItIs() throws {
        let book = try BookFixtures.require(BookFixtures.wasteland)
        try fixture.openAndHear(book, chapter: 1)
        // Past the first periodic bookmark (5 s after Playing), then far away from it.
        XCTAssertTrue(try poll(timeout: 10) { try fixture.position() > 5_500_000 }, "did not play 5.5 s\(fixture.context)")
        let seek = try fixture.busCall(PlayerFixture.player, "SetPosition", ["ox", try fixture.trackID(), "60000000"])
        XCTAssertTrue(seek.succeeded, "\(seek)")
        XCTAssertTrue(try poll(timeout: 2) { try fixture.position() >= 60_000_000 }, "SetPosition 60 s\(fixture.context)")

        let read = try fixture.cli("read", book.path)
        XCTAssertEqual(read.status, 0, "\(read)")
        XCTAssertEqual(try fixture.trackNumber(), 2, "same chapter")
        let position = try fixture.position()
        XCTAssertGreaterThan(position, 55_000_000,
                             "re-reading the book at 60 s resumed at \(Double(position) / 1e6) s: the stale bookmark, not where it was\(fixture.context)")
        XCTAssertLessThan(position, 70_000_000)
    }

    // MARK: - SpeakingRange

    /// The chapter text and the SpeakingRange signals of that chapter heard after `since`, once
    /// `count` of them arrived.
    private func speakingRanges(chapter: Int, since: Date, count: Int,
                                timeout: TimeInterval = 15) throws -> (text: [Unicode.Scalar], trackID: String, ranges: [(Int, Int)]) {
        // Callers come here after Open replied and the new book was heard: from now on no other
        // track may speak. (Between the Open call and its reply the book it replaces still plays,
        // and its words are rightly announced.)
        let replaced = Date()
        let answer = try fixture.busctl(["--json=short", "call", PlayerFixture.mprisName, PlayerFixture.narratorPath,
                                         PlayerFixture.narrator, "GetChapterText", "u", String(chapter)])
        XCTAssertTrue(answer.succeeded, "\(answer)")
        let decoded = try JSONSerialization.jsonObject(with: Data(answer.stdout.utf8)) as? [String: Any]
        let data = try XCTUnwrap(decoded?["data"] as? [Any], answer.stdout)
        let trackID = try XCTUnwrap(data.first as? String), text = try XCTUnwrap(data.last as? String)
        XCTAssertEqual(try fixture.trackID(), trackID, "GetChapterText's track id is the current track's")
        let signals = { self.fixture.signals("SpeakingRange", since: since).filter { $0.arguments.first == trackID } }
        _ = poll(timeout: timeout) { signals().count >= count }
        let ranges = signals().compactMap { signal -> (Int, Int)? in
            guard signal.arguments.count == 3, let start = Int(signal.arguments[1]), let length = Int(signal.arguments[2]) else {
                XCTFail("malformed SpeakingRange \(signal.raw)")
                return nil
            }
            return (start, length)
        }
        XCTAssertGreaterThanOrEqual(ranges.count, count, "SpeakingRange of \(trackID)\(fixture.context)")
        let others = fixture.signals("SpeakingRange", since: replaced).filter { $0.arguments.first != trackID }
        XCTAssertTrue(others.isEmpty, "SpeakingRange with another track id: \(others.prefix(3))")
        return (Array(text.unicodeScalars), trackID, ranges)
    }

    /// Asserts every range cuts a whole word out of `text`, in increasing order; returns the words.
    @discardableResult
    private func assertWholeWords(_ ranges: [(Int, Int)], in text: [Unicode.Scalar],
                                  file: StaticString = #filePath, line: UInt = #line) -> [String] {
        func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic || scalar.properties.numericType != nil || scalar == "'"
        }
        var words: [String] = []
        var previous = -1
        for (start, length) in ranges {
            guard start >= 0, length > 0, start + length <= text.count else {
                XCTFail("range (\(start), \(length)) outside the \(text.count) scalars of the chapter", file: file, line: line)
                continue
            }
            var view = String.UnicodeScalarView()
            view.append(contentsOf: text[start..<(start + length)])
            let word = String(view)
            words.append(word)
            let whole = text[start..<(start + length)].allSatisfy(isWordScalar)
                && (start == 0 || !isWordScalar(text[start - 1]))
                && (start + length == text.count || !isWordScalar(text[start + length]))
            XCTAssertTrue(whole, "range (\(start), \(length)) cuts \"\(word)\", not a whole word", file: file, line: line)
            XCTAssertGreaterThan(start, previous, "ranges out of order at (\(start), \(length))", file: file, line: line)
            previous = start
        }
        return words
    }

    func testSpeakingRangeCarriesTheTrackAndCutsWordsOfTheChapterText() throws {
        let bodies = ["A first chapter that is read only in passing.",
                      "The second chapter has plain words that the listener hears one after another in this order."]
        let book = try TextBooks.write(bodies, named: "ranges.txt", in: fixture.session.directory)
        let since = try fixture.openAndHear(book, chapter: 1)
        let (text, _, ranges) = try speakingRanges(chapter: 1, since: since, count: 12)
        let words = assertWholeWords(ranges, in: text)

        // The chapter's words in order from its first word: espeak-ng reports no boundary for
        // some unstressed words ("the" after "that"), so the heard words are a subsequence.
        let expected = String(String.UnicodeScalarView(text))
            .split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
        var remaining = expected[...]
        for word in words {
            guard let index = remaining.firstIndex(of: word) else {
                XCTFail("heard \"\(word)\" out of the chapter's order: heard \(words), chapter \(expected)")
                break
            }
            XCTAssertLessThanOrEqual(index - remaining.startIndex, 1, "more than one word skipped before \"\(word)\": \(words)")
            remaining = expected[(index + 1)...]
        }
        XCTAssertEqual(words.first, "Chapter", "narration starts at the chapter heading: \(words)")
        XCTAssertEqual(expected.first, "Chapter", "GetChapterText starts with the chapter heading")
    }

    /// espeak-ng reports the word after "From" one character after "From" starts ("rom " instead of
    /// "which"); the Wasteland's second part has the line. The range must still cut "which".
    /// espeak-ng reports "which" in "From which" at offset 1 ("rom "): the daemon must drop such
    /// a report rather than highlight a piece of a word, and keep the words after it aligned.
    func testMisplacedEngineWordsAreDroppedNotShownWrong() throws {
        let bodies = ["Held up by standards wrought with fruited vines. From which a golden Cupidon peeped out."]
        let book = try TextBooks.write(bodies, named: "fromwhich.txt", in: fixture.session.directory)
        let since = try fixture.openAndHear(book)
        let (text, _, ranges) = try speakingRanges(chapter: 0, since: since, count: 15)   // "Chapter 1" ... "peeped"
        let words = assertWholeWords(ranges, in: text)
        XCTAssertFalse(words.contains("rom"), "heard: \(words)")
        for later in ["golden", "Cupidon", "peeped"] {
            XCTAssertTrue(words.contains(later), "\(later) missing after the misplaced word: \(words)")
        }
    }

    /// An EPUB of one chapter: an English paragraph holding a German phrase, a footnote.
    private func languageBook() throws -> URL {
        let folder = fixture.session.directory.appendingPathComponent("books", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("passages.epub")
        _ = try EPUBWriter.standard(opf: """
            <?xml version="1.0" encoding="UTF-8"?>
            <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
              <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
                <dc:identifier id="id">urn:test:passages</dc:identifier><dc:title>Passages</dc:title>
                <dc:language>en</dc:language><meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>
              </metadata>
              <manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest>
              <spine><itemref idref="c1"/></spine>
            </package>
            """)
            .adding("OEBPS/c1.xhtml", """
                <?xml version="1.0" encoding="UTF-8"?>
                <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="en">
                <head><title>Passages</title></head><body>
                <p>The old sign said <span xml:lang="de">Bitte nicht stören, danke schön</span> in red letters.                <a epub:type="noteref" href="#n1">1</a></p>
                <aside epub:type="footnote" id="n1"><p>Please do not disturb.</p></aside>
                </body></html>
                """)
            .write(to: url)
        return url
    }

    /// A passage the book marks as German is read in espeak-ng's German voice (the log names it),
    /// the narration goes on through it word by word, and the footnote is read after its paragraph.
    func testAPassageInAnotherLanguageIsReadInItsVoiceAndTheNoteAfterItsParagraph() throws {
        let since = try fixture.openAndHear(try languageBook())
        let (text, _, ranges) = try speakingRanges(chapter: 0, since: since, count: 16, timeout: 20)
        let chapter = String(String.UnicodeScalarView(text))
        XCTAssertEqual(chapter, "The old sign said Bitte nicht stören, danke schön in red letters.\n\nNote: Please do not disturb.")
        let words = assertWholeWords(ranges, in: text)
        for word in ["Bitte", "stören", "letters", "Please", "disturb"] {
            XCTAssertTrue(words.contains(word), "\(word) not heard: \(words)")
        }
        XCTAssertTrue(fixture.daemon.standardError.contains("passages in de are read with the voice"),
                      "the German voice is named in the log\(fixture.context)")
    }

    // MARK: - CLI

    func testStatusPrintsTheBookAndFollowPrintsPlainLines() throws {
        let book = try BookFixtures.require(BookFixtures.wasteland)
        try fixture.openAndHear(book, chapter: 1)

        let status = try fixture.cli("status")
        XCTAssertEqual(status.status, 0, "\(status)")
        XCTAssertTrue(status.stdout.contains("Book:     The Waste Land"), status.stdout)
        XCTAssertTrue(status.stdout.contains("Author:   T.S. Eliot"), status.stdout)
        XCTAssertTrue(status.stdout.contains("Chapter:  2 of 7: I. THE BURIAL OF THE DEAD"), status.stdout)
        XCTAssertNotNil(status.stdout.range(of: #"Position: [0-9]+:[0-5][0-9] of [0-9]+:[0-5][0-9] \(Playing\)"#,
                                            options: .regularExpression), status.stdout)

        let follow = try fixture.session.spawn(fixture.lector, ["status", "--follow"])
        defer { follow.terminate(grace: 1) }
        func lines() -> [String] { follow.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        let first = #"^playing chapter 2 "I\. THE BURIAL OF THE DEAD" [0-9]+:[0-5][0-9]/[0-9]+:[0-5][0-9]$"#
        XCTAssertTrue(poll(timeout: 5) { lines().contains { $0.range(of: first, options: .regularExpression) != nil } },
                      "status --follow printed \(follow.output)")
        XCTAssertFalse(follow.standardOutput.contains("\u{1B}"), "escape codes when stdout is not a terminal")
        XCTAssertFalse(follow.standardOutput.contains("\r"), "carriage returns when stdout is not a terminal")

        XCTAssertTrue(try fixture.playerctl("next").succeeded)
        let second = #"^playing chapter 3 "II\. A GAME OF CHESS" 0:0[0-9]/[0-9]+:[0-5][0-9]$"#
        XCTAssertTrue(poll(timeout: 4) { lines().contains { $0.range(of: second, options: .regularExpression) != nil } },
                      "status --follow after next printed \(follow.output)")
        XCTAssertTrue(follow.isRunning, follow.output)
    }
}
