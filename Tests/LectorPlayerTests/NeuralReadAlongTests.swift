import Foundation
import LectorNeural
import LectorTestKit
import XCTest

/// The read-along page in Chromium while the neural (Piper) voice reads: every word highlighted
/// is the word the bus says is heard, at its offsets, and when paused the highlight rests on the
/// last word heard; clicking a word reads from it, in the same voice.
final class NeuralReadAlongTests: XCTestCase {
    func testThePageFollowsTheNeuralVoiceWordByWord() throws {
        let sites = RuntimeLocator.sitePackages()
        guard let model = RuntimeLocator.packagedVoices(sitePackages: sites).first(where: { $0.hasSuffix("en_US-joe-medium.onnx") }),
              let runtime = RuntimeLocator.runtimeCandidates(environment: [:], sitePackages: sites)
                .first(where: { $0.hasPrefix("/") && FileManager.default.fileExists(atPath: $0) }) else {
            let message = "no real Piper voice or ONNX Runtime; install with: scripts/install-deps --test"
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(message); return }
            throw XCTSkip(message)
        }
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let voices = URL(fileURLWithPath: fixture.session.environment["XDG_DATA_HOME"]!).appendingPathComponent("lector/voices")
        try FileManager.default.createDirectory(at: voices, withIntermediateDirectories: true)
        for suffix in ["", ".json"] {
            try FileManager.default.copyItem(atPath: model + suffix, toPath: voices.appendingPathComponent("en_US-joe-medium.onnx" + suffix).path)
        }
        fixture.daemon.send(signal: SIGTERM)
        _ = fixture.daemon.waitForExit(timeout: 10)
        try fixture.startDaemon(environment: ["LECTOR_ONNXRUNTIME": runtime])
        let (server, url) = try fixture.startViewServer()
        defer { server.terminate(grace: 2) }
        let browser = try HeadlessBrowser(session: fixture.session)
        defer { browser.close() }
        let diagnostics = { "\nbrowser console: \((try? browser.console().suffix(20)) ?? [])\(fixture.context)" }

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
        try browser.waitFor("window.lectorView.metrics.ranges.length >= 10", timeout: 30)
        let entries = try XCTUnwrap(browser.eval("window.lectorView.metrics.ranges.filter((r) => r.chapter === 0)") as? [[String: Any]])
        XCTAssertGreaterThanOrEqual(entries.count, 10, diagnostics())
        for entry in entries {
            let start = try XCTUnwrap(entry["start"] as? Int), length = try XCTUnwrap(entry["length"] as? Int)
            XCTAssertEqual(entry["text"] as? String, PlayerFixture.slice(text, start, length), "highlight of (\(start), \(length))")
        }
        let heard = fixture.signals("SpeakingRange", since: since).compactMap { Int($0.arguments[1]) }
        XCTAssertTrue(Set(entries.compactMap { $0["start"] as? Int }).isSubset(of: Set(heard)),
                      "the page highlighted words the bus never announced")

        // Paused: the highlight rests on the last word heard.
        XCTAssertTrue(try fixture.playerctl("pause").succeeded)
        try browser.waitFor("document.getElementById('play').getAttribute('aria-label') === 'Play'")
        _ = poll(timeout: 2) { false }   // the last ranges of the run that paused arrive
        let last = try XCTUnwrap(fixture.signals("SpeakingRange", since: since).last)
        let start = try XCTUnwrap(Int(last.arguments[1])), length = try XCTUnwrap(Int(last.arguments[2]))
        try browser.waitFor("window.lectorView.view.range && window.lectorView.view.range.start === \(start)")
        XCTAssertEqual(try browser.eval("[...CSS.highlights.get('lector-word')][0].toString()") as? String,
                       PlayerFixture.slice(text, start, length), diagnostics())

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
    }
}
