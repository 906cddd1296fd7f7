import LectorCore
import XCTest

/// The assumption `EngineText` rests on, checked against the installed espeak-ng by measuring
/// its audio: a bare line break is no pause at all, the line pause it is rendered as pauses
/// with the pitch held up, and a full stop (what Lector used to invent) pauses longer with the
/// pitch falling: the end of a sentence.
final class EngineTextProsodyTests: XCTestCase {
    func measure(_ text: String) throws -> (pause: Int, pitch: Double?) {
        guard let rendering = try EspeakRendering.render(text) else { throw XCTSkip("espeak-ng is not installed") }
        let pause = rendering.longestInnerPause()
        return (pause.milliseconds, rendering.pitch(before: pause.start))
    }

    func testALineBreakRenderedForTheEngineIsAClausePauseNotASentenceEnd() throws {
        let lines = "April is the cruellest month breeding\nLilacs out of the dead land"
        let rendered = EngineText.render(Array(lines.unicodeScalars)[...], endsPhrase: true)
        XCTAssertTrue(rendered.contains("\u{FF1B}"))

        let bare = try measure(lines)
        let line = try measure(rendered)
        let sentence = try measure(lines.replacingOccurrences(of: "\n", with: ". "))
        print("espeak-ng: bare line break \(bare), rendered \(line), full stop \(sentence)")
        XCTAssertLessThan(bare.pause, 100, "a bare line break runs on")
        XCTAssertGreaterThanOrEqual(line.pause, 150, "the line pause is heard")
        XCTAssertLessThan(line.pause, sentence.pause, "and is shorter than a sentence end")
        let linePitch = try XCTUnwrap(line.pitch), sentencePitch = try XCTUnwrap(sentence.pitch)
        XCTAssertGreaterThan(linePitch, sentencePitch * 1.08, "the pitch stays up: the line goes on")
    }
}
