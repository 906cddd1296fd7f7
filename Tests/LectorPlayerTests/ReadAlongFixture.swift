import Foundation
import LectorTestKit
import XCTest

/// What the read-along tests share: the page's server and the chapter text the page shows.
extension PlayerFixture {
    /// `lector view --no-browser`: its first line is the page's address.
    func startViewServer(idleExit: Int = 600) throws -> (ManagedProcess, String) {
        let server = try session.spawn(lector, ["view", "--no-browser", "--idle-exit", String(idleExit)])
        var address: String?
        _ = poll(timeout: 15) {
            address = server.standardOutput.split(separator: "\n").first.map(String.init)
            return address != nil || !server.isRunning
        }
        guard let address, address.hasPrefix("http://127.0.0.1:"), address.contains("/?token=") else {
            throw FixtureError("lector view printed no address: \(server.output)")
        }
        return (server, address)
    }

    /// The chapter's speakable text, as SpeakingRange counts it.
    func chapterText(_ chapter: Int) throws -> [Unicode.Scalar] {
        let answer = try busctl(["--json=short", "call", PlayerFixture.mprisName, PlayerFixture.narratorPath,
                                 PlayerFixture.narrator, "GetChapterText", "u", String(chapter)])
        let decoded = try JSONSerialization.jsonObject(with: Data(answer.stdout.utf8)) as? [String: Any]
        let text = try XCTUnwrap((decoded?["data"] as? [Any])?.last as? String, answer.stdout)
        return Array(text.unicodeScalars)
    }

    static func slice(_ text: [Unicode.Scalar], _ start: Int, _ length: Int) -> String {
        guard start >= 0, start + length <= text.count else { return "<outside \(text.count)>" }
        return String(String.UnicodeScalarView(text[start..<(start + length)]))
    }

    /// Every word the page highlighted in `chapter` (its metrics, at least `atLeast` of them) is
    /// a word the bus announced since `since`, and shows that word's text at its offsets.
    func assertPageHighlightsHeardWords(_ browser: HeadlessBrowser, chapter: Int, text: [Unicode.Scalar], since: Date,
                                        atLeast: Int, timeout: Double, diagnostics: @autoclosure () -> String,
                                        file: StaticString = #filePath, line: UInt = #line) throws {
        try browser.waitFor("window.lectorView.metrics.ranges.length >= \(atLeast)", timeout: timeout)
        let entries = try XCTUnwrap(browser.eval("window.lectorView.metrics.ranges.filter((r) => r.chapter === \(chapter))")
                                    as? [[String: Any]], file: file, line: line)
        XCTAssertGreaterThanOrEqual(entries.count, atLeast, diagnostics(), file: file, line: line)
        for entry in entries {
            let start = try XCTUnwrap(entry["start"] as? Int, file: file, line: line)
            let length = try XCTUnwrap(entry["length"] as? Int, file: file, line: line)
            XCTAssertEqual(entry["text"] as? String, Self.slice(text, start, length), "highlight of (\(start), \(length))",
                           file: file, line: line)
        }
        let heard = signals("SpeakingRange", since: since).compactMap { Int($0.arguments[1]) }
        let shown = Set(entries.compactMap { $0["start"] as? Int })
        XCTAssertTrue(shown.isSubset(of: Set(heard)), "the page highlighted words the bus never announced", file: file, line: line)
    }

    /// Pauses, and once the last ranges of the run that paused arrived, the page's word
    /// highlight is the last word announced since `since`; that word's start and length.
    @discardableResult
    func pauseAndAssertHighlightOnLastWord(_ browser: HeadlessBrowser, text: [Unicode.Scalar], since: Date,
                                           diagnostics: @autoclosure () -> String,
                                           file: StaticString = #filePath, line: UInt = #line) throws -> (start: Int, length: Int) {
        XCTAssertTrue(try playerctl("pause").succeeded, file: file, line: line)
        try browser.waitFor("document.getElementById('play').getAttribute('aria-label') === 'Play'")
        _ = poll(timeout: 2) { false }   // the last ranges of the run that paused arrive
        let last = try XCTUnwrap(signals("SpeakingRange", since: since).last, file: file, line: line)
        let start = try XCTUnwrap(Int(last.arguments[1]), file: file, line: line)
        let length = try XCTUnwrap(Int(last.arguments[2]), file: file, line: line)
        try browser.waitFor("window.lectorView.view.range && window.lectorView.view.range.start === \(start)")
        XCTAssertEqual(try browser.eval("[...CSS.highlights.get('lector-word')][0].toString()") as? String,
                       Self.slice(text, start, length), diagnostics(), file: file, line: line)
        return (start, length)
    }
}
