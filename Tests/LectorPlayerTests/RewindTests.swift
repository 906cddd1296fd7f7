import Foundation
import LectorTestKit
import XCTest

/// Rewind on resume (issue 13): after a pause longer than `rewind-after-pause-seconds`,
/// narration resumes at the start of the sentence `rewind-seconds` earlier. A 1 s threshold here,
/// so no test waits for minutes; a short pause does not rewind; a restart counts as a pause.
final class RewindTests: XCTestCase {
    /// Twenty short sentences, two to three seconds each.
    static let sentences = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
    ].map { "This is sentence number \($0) of the story." }.joined(separator: " ")

    private func configure(_ fixture: PlayerFixture, _ text: String) throws {
        let config = URL(fileURLWithPath: fixture.session.environment["XDG_CONFIG_HOME"]! + "/lector/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: config, atomically: true, encoding: .utf8)
        let reload = try fixture.session.run("gdbus", ["call", "--session", "--dest", "io.github.lector.Lector1", "--object-path",
                                                       "/io/github/lector/Lector1", "--method", "io.github.lector.Lector1.Reload"],
                                             timeout: 10)
        XCTAssertTrue(reload.succeeded, "\(reload)")
    }

    /// The chapter's text as busctl's JSON gives it.
    private func chapterText(_ fixture: PlayerFixture) throws -> [Unicode.Scalar] {
        let result = try fixture.busctl(["--json=short", "call", PlayerFixture.mprisName, PlayerFixture.narratorPath,
                                         PlayerFixture.narrator, "GetChapterText", "u", "0"])
        guard let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
              let data = object["data"] as? [Any], let text = data.last as? String else { throw FixtureError("\(result)") }
        return Array(text.unicodeScalars)
    }

    /// Plays, waits, returns the first word heard and the Seeked position (if any) after play.
    private func play(_ fixture: PlayerFixture) throws -> (offset: Int, seeked: Double?) {
        let since = Date()
        XCTAssertTrue(try fixture.playerctl("play").succeeded)
        let word = try XCTUnwrap(fixture.waitForSignal("SpeakingRange", since: since, timeout: 5), "not heard\(fixture.context)")
        let seeked = fixture.signals("Seeked", since: since).first.flatMap { Double($0.arguments.first ?? "") }.map { $0 / 1e6 }
        return (Int(word.arguments[1]) ?? -1, seeked)
    }

    private func isSentenceStart(_ offset: Int, in text: [Unicode.Scalar]) -> Bool {
        guard offset > 1 else { return offset == 0 }
        return text[offset - 1] == " " && text[offset - 2] == "."
    }

    func testALongPauseResumesAtTheSentenceTenSecondsEarlierAndAShortOneDoesNot() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        try configure(fixture, "[narration]\nrewind-after-pause-seconds = 1\nrewind-seconds = 10\n")
        let book = try TextBooks.write([Self.sentences], named: "story.txt", in: fixture.session.directory)
        try fixture.openAndHear(book)
        let text = try chapterText(fixture)
        XCTAssertTrue(try poll(timeout: 30) { try fixture.position() >= 16_000_000 }, "did not play 16 s\(fixture.context)")

        // A short pause: straight on from the word it stopped at.
        var paused = Date()
        XCTAssertTrue(try fixture.playerctl("pause").succeeded)
        let shortAt = try fixture.position()
        let heard = try XCTUnwrap(fixture.lastHeardOffset(since: paused.addingTimeInterval(-5)))
        var resumed = try play(fixture)
        XCTAssertNil(resumed.seeked, "a short pause rewound")
        XCTAssertGreaterThanOrEqual(resumed.offset, heard, "a short pause went back")

        // A long one (longer than the 1 s configured): the sentence 10 s earlier.
        Thread.sleep(forTimeInterval: 2)
        paused = Date()
        XCTAssertTrue(try fixture.playerctl("pause").succeeded)
        let longAt = Double(try fixture.position()) / 1e6
        XCTAssertGreaterThan(longAt, Double(shortAt) / 1e6)
        Thread.sleep(forTimeInterval: 1.5)
        resumed = try play(fixture)
        let seeked = try XCTUnwrap(resumed.seeked, "no Seeked after a long pause\(fixture.context)")
        XCTAssertLessThanOrEqual(seeked, longAt - 10 + 0.5, "resumed \(longAt - seeked) s earlier, not 10 s or more")
        XCTAssertGreaterThan(seeked, longAt - 10 - 4, "resumed more than a sentence before 10 s earlier")
        XCTAssertTrue(isSentenceStart(resumed.offset, in: text),
                      "resumed mid-sentence at \(resumed.offset): \(String(String.UnicodeScalarView(text[max(0, resumed.offset - 10)..<min(text.count, resumed.offset + 10)])))")
        _ = paused
    }

    func testARestartCountsAsAPauseAndZeroNeverRewinds() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        try configure(fixture, "[narration]\nrewind-after-pause-seconds = 1\nrewind-seconds = 10\n")
        let book = try TextBooks.write([Self.sentences], named: "story.txt", in: fixture.session.directory)
        try fixture.openAndHear(book)
        XCTAssertTrue(try poll(timeout: 30) { try fixture.position() >= 14_000_000 }, fixture.context)
        fixture.daemon.send(signal: SIGTERM)
        XCTAssertEqual(fixture.daemon.waitForExit(timeout: 10), 0, fixture.context)
        Thread.sleep(forTimeInterval: 1.2)
        try fixture.startDaemon()
        XCTAssertTrue(try poll(timeout: 10) { try fixture.bool("CanPlay") }, fixture.context)
        // Position after a restart is estimated from the text (the speed is learned anew).
        let stoppedAt = Double(try fixture.position()) / 1e6
        let mark = try XCTUnwrap(fixture.anyBookmarkOffset() > 0 ? fixture.anyBookmarkOffset() : nil, "no bookmark")
        let text = try chapterText(fixture)
        var resumed = try play(fixture)
        let seeked = try XCTUnwrap(resumed.seeked, "no rewind after a restart\(fixture.context)")
        XCTAssertLessThanOrEqual(seeked, max(0, stoppedAt - 9.5), "stopped at \(stoppedAt) s")
        XCTAssertLessThan(resumed.offset, mark - 40, "resumed at \(resumed.offset), the bookmark is at \(mark)")
        XCTAssertTrue(isSentenceStart(resumed.offset, in: text), "at \(resumed.offset)")

        // rewind-seconds = 0: never.
        try configure(fixture, "[narration]\nrewind-after-pause-seconds = 1\nrewind-seconds = 0\n")
        Thread.sleep(forTimeInterval: 2)
        let since = Date()
        XCTAssertTrue(try fixture.playerctl("pause").succeeded)
        let heard = try XCTUnwrap(fixture.lastHeardOffset(since: since.addingTimeInterval(-5)))
        Thread.sleep(forTimeInterval: 1.5)
        resumed = try play(fixture)
        XCTAssertNil(resumed.seeked, "rewound with rewind-seconds = 0")
        XCTAssertGreaterThanOrEqual(resumed.offset, heard)
    }
}
