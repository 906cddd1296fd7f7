import LectorCore
import LectorSpeech
import LectorTestKit
import XCTest

/// The check that a voice can read a book, through the real espeak-ng (its engine thread).
final class PronunciationProbeTests: XCTestCase {
    private static let engine = try! SpeechEngine(bufferedSecondsAhead: 1)
    private var catalog: VoiceCatalog { VoiceCatalog(voices: Self.engine.voices) }

    private func check(_ text: String, voice name: String, bookLanguage: String? = nil) throws -> PronunciationReport {
        let voice = try catalog.resolve(language: nil, voice: name)
        let catalog = catalog
        let done = expectation(description: "checked")
        nonisolated(unsafe) var result: PronunciationReport?
        PronunciationProbe.check(engine: Self.engine, texts: [text], voice: voice, candidates: { verdict in
            PronunciationCheck.candidates(for: verdict, bookLanguage: bookLanguage, current: voice, catalog: catalog)
        }) { report in
            result = report
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
        return try XCTUnwrap(result, "no report for \(name)")
    }

    func testJapaneseKanjiUnderTheJapaneseVoice() throws {
        let report = try check(ScriptSamples.japanese, voice: "ja", bookLanguage: "ja")
        XCTAssertTrue(report.isProblem, report.sentence)
        XCTAssertEqual(report.verdict.scripts.first, .han, report.sentence)
        XCTAssertEqual(report.verdict.failure, .named, report.sentence)
        XCTAssertGreaterThan(report.verdict.share, 0.2, report.sentence)
        XCTAssertNil(report.suggestion, "espeak-ng has no voice for kanji and kana together: \(report.sentence)")
        XCTAssertTrue(report.sentence.hasSuffix("no installed voice can read it"), report.sentence)
    }

    func testRussianUnderAnEnglishVoiceSuggestsRussian() throws {
        let report = try check(ScriptSamples.russian, voice: "en-us")
        XCTAssertTrue(report.isProblem, report.sentence)
        XCTAssertEqual(report.verdict.scripts, [.cyrillic], report.sentence)
        XCTAssertEqual(report.verdict.failure, .spelled, report.sentence)
        XCTAssertGreaterThan(report.verdict.share, 0.9, report.sentence)
        XCTAssertEqual(report.suggestion?.voice, "Russian", report.sentence)
    }

    func testGreekUnderAnEnglishVoiceSuggestsGreek() throws {
        let report = try check(ScriptSamples.greek, voice: "en-us")
        XCTAssertTrue(report.isProblem, report.sentence)
        XCTAssertEqual(report.suggestion?.voice, "Greek", report.sentence)
    }

    func testEnglishUnderAnEnglishVoiceAndRussianUnderRussianAreClean() throws {
        for (text, voice) in [(ScriptSamples.english, "en-us"), (ScriptSamples.russian, "ru"), (ScriptSamples.greek, "el")] {
            let report = try check(text, voice: voice)
            XCTAssertFalse(report.isProblem, report.sentence)
            XCTAssertLessThan(report.verdict.share, 0.02, "\(voice): \(report.verdict)")
        }
    }

    /// espeak-ng's Russian voice hands English words to its English voice: read, not a problem.
    func testEnglishUnderTheRussianVoiceIsReadByEspeaksOwnSwitch() throws {
        let report = try check(ScriptSamples.english, voice: "ru")
        XCTAssertFalse(report.isProblem, report.sentence)
    }

    /// The plain `cmn` voice of espeak-ng 1.51 reads hanzi as Pinyin spelled in English.
    func testHanziUnderThePlainMandarinVoiceAreReadThroughEnglish() throws {
        let report = try check(ScriptSamples.chinese, voice: "sit/cmn")
        XCTAssertTrue(report.isProblem, report.sentence)
        XCTAssertEqual(report.verdict.failure, .otherLanguage, report.sentence)
        XCTAssertEqual(report.suggestion?.voice, "Chinese (Mandarin, latin as Pinyin)", report.sentence)
    }

    /// Hanzi, Hebrew and Arabic under an English voice: named ("Chinese letter", "hebrew shin",
    /// "arabic meem"), and the voice of the script's language suggested.
    func testOtherScriptsUnderAnEnglishVoiceSuggestTheirLanguagesVoices() throws {
        for (text, script, voice) in [(ScriptSamples.chinese, WritingScript.han, "Chinese (Mandarin, latin as Pinyin)"),
                                      (ScriptSamples.hebrew, .hebrew, "Hebrew"), (ScriptSamples.arabic, .arabic, "Arabic")] {
            let report = try check(text, voice: "en-us")
            XCTAssertTrue(report.isProblem, report.sentence)
            XCTAssertGreaterThan(report.verdict.share, 0.8, report.sentence)
            XCTAssertEqual(report.verdict.scripts, [script], report.sentence)
            XCTAssertEqual(report.suggestion?.voice, voice, report.sentence)
        }
    }
}
