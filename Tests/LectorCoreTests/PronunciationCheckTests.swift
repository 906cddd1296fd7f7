import LectorCore
import XCTest

/// The decision over espeak-ng's phonemes, on readings recorded from espeak-ng 1.51
/// (`espeak_TextToPhonemes`; the real engine is exercised in LectorDaemonTests and LectorPlayerTests).
final class PronunciationCheckTests: XCTestCase {
    /// Readings as a table; a query not in it reads as itself (a stand-in for a clean reading).
    private func verdict(_ text: String, voice: String, _ readings: [String: String]) -> PronunciationVerdict {
        let sample = PronunciationSample(texts: [text])
        return sample.verdict(voice: voice, readings: sample.queries.map { readings[$0] ?? "x" + $0 + "x" })
    }

    private let chineseLetter = "_:(en)tS'aIni:z(ja)l'et@"

    func testKanjiNamedByTheJapaneseVoiceAreCountedAsNotRead() {
        let readings = ["日": chineseLetter, "本": chineseLetter, "語": chineseLetter, "読": chineseLetter,
                        "の": "n'o", "を": "'o", "み": "m'i", "ま": "m'a", "す": "s'u"]
        let result = verdict("日本語の本を読みます", voice: "Japanese", readings)
        XCTAssertEqual(result.letters, 10)
        XCTAssertEqual(result.share, 0.5, accuracy: 0.001)   // 日 本 語 本 読 of 10
        XCTAssertEqual(result.scripts, [.han])
        XCTAssertEqual(result.failure, .named)
        XCTAssertEqual(result.examples.first, "本")   // the most frequent first
        XCTAssertFalse(result.isClean)
    }

    func testCyrillicSpelledByAnEnglishVoiceIsCountedAsNotRead() {
        let readings = ["кот": "k'a: 'o: t'E:", "к": "k'a:", "о": "'o:", "т": "t'E:"]
        let result = verdict("кот кот", voice: "English", readings)
        XCTAssertEqual(result.share, 1)
        XCTAssertEqual(result.failure, .spelled)
        XCTAssertEqual(result.scripts, [.cyrillic])
        XCTAssertEqual(result.examples, ["кот"])
    }

    func testTheRightVoiceReadsCleanly() {
        // The Russian voice reads the word, not its letters' names.
        let readings = ["кот": "k'ot", "к": "k'A", "о": "'o", "т": "t'E"]
        let result = verdict("кот кот", voice: "Russian", readings)
        XCTAssertEqual(result.share, 0)
        XCTAssertTrue(result.isClean)
        XCTAssertEqual(PronunciationReport(verdict: result).sentence, "the voice Russian reads this book (a sample of 6 letters)")
    }

    func testAnAcronymSpelledIsReadRightly() {
        let text = String(repeating: "The cat sat on the mat and it was OK with that. ", count: 4)
        let readings = ["OK": ",oUk'eI", "O": "'oU", "K": "k'eI", "Ok": ",oUk'eI", "k": "k'eI"]
        XCTAssertEqual(verdict(text, voice: "English", readings).share, 0)
        // Not in capitals, a word read as its letters' names is spelled.
        XCTAssertEqual(verdict("Ok Ok", voice: "English", readings).failure, .spelled)
    }

    func testSkippedAndOtherLanguageSignals() {
        // Georgian letter by letter as code points, one of them read as nothing.
        XCTAssertEqual(verdict("ქა ქა", voice: "English", ["ქა": "l,Etkh_|w'@n_|", "ა": "s", "ქ": ""]).failure, .skipped)
        // Words another language's voice reads are read (espeak-ng switches by itself)...
        let english = verdict("hello world", voice: "Russian", ["hello": "(en)h@l'oU(ru)", "world": "(en)w'3:ld(ru)"])
        XCTAssertEqual(english.share, 0)
        // ...characters read one by one through another language are not (Pinyin read as English).
        let pinyin = verdict("你好", voice: "Chinese (Mandarin, latin as English)",
                             ["你": "(en)nI55Tr'i:55(cmn)", "好": "(en)h,eI55@55Tr'i:55(cmn)"])
        XCTAssertEqual(pinyin.failure, .otherLanguage)
        XCTAssertEqual(pinyin.share, 1)
    }

    func testHomophonesAreNotANameButOneReadingForMostCharactersIs() {
        // Cantonese reads 是 and 事 alike (si6): two of five characters are not "most".
        let readings = ["是": "s'i6", "事": "s'i6", "你": "n'ei5", "好": "h'ou2", "我": "ng'o5"]
        XCTAssertEqual(verdict("是事你好我", voice: "Cantonese", readings).share, 0)
        let named = ["是": "tS'aIni:zl,Et3", "事": "tS'aIni:zl,Et3", "你": "tS'aIni:zl,Et3", "好": "h'ou2", "我": "ng'o5"]
        XCTAssertEqual(verdict("是事你好我", voice: "English", named).share, 0.6, accuracy: 0.001)
    }

    func testScriptsAndWordsAreCutAtScriptChanges() {
        XCTAssertEqual(WritingScript(of: "日"), .han)
        XCTAssertEqual(WritingScript(of: "ひ"), .hiragana)
        XCTAssertEqual(WritingScript(of: "я"), .cyrillic)
        XCTAssertEqual(WritingScript(of: "é"), .latin)
        XCTAssertEqual(WritingScript(of: "ש"), .hebrew)
        XCTAssertEqual(WritingScript(of: "€"), .other)
        let sample = PronunciationSample(texts: ["abcгде 12, ёж!"])
        XCTAssertEqual(sample.letterCount, 8)
        XCTAssertEqual(Array(sample.queries.prefix(3)), ["abc", "где", "ёж"])
        // The long-vowel mark ー is not a letter to read on its own.
        XCTAssertEqual(PronunciationSample(texts: ["ニャーニャー"]).queries, ["ニ", "ャ"])
    }

    func testALongTextIsSampledInWindowsOfWholeWords() {
        let text = (0..<2000).map { "word\($0 % 50)" }.joined(separator: " ")
        let sample = PronunciationSample(texts: [text])
        XCTAssertLessThanOrEqual(sample.letterCount, PronunciationCheck.sampleLetters + 200)
        XCTAssertGreaterThan(sample.letterCount, PronunciationCheck.sampleLetters / 2)
        XCTAssertTrue(sample.queries.allSatisfy { $0.hasPrefix("word") || $0.count == 1 }, "a word was cut: \(sample.queries)")
        XCTAssertFalse(PronunciationSample(texts: ["Chapter One"]).isUsable)
    }

    func testCandidatesComeFromTheBooksLanguageThenTheScriptsLanguages() {
        let voices = [
            Voice(name: "English", identifier: "gmw/en", languages: [.init(tag: "en", priority: 2)], gender: .male),
            Voice(name: "Russian", identifier: "zle/ru", languages: [.init(tag: "ru", priority: 5)], gender: .male),
            Voice(name: "Ukrainian", identifier: "zle/uk", languages: [.init(tag: "uk", priority: 5)], gender: .male),
            Voice(name: "Japanese", identifier: "jpx/ja", languages: [.init(tag: "ja", priority: 5)], gender: .male),
        ]
        let catalog = VoiceCatalog(voices: voices)
        let cyrillic = PronunciationVerdict(voice: "English", letters: 100, share: 1, scripts: [.cyrillic], failure: .spelled,
                                            examples: [], sampleScripts: [.cyrillic])
        XCTAssertEqual(PronunciationCheck.candidates(for: cyrillic, bookLanguage: nil, current: voices[0], catalog: catalog)
                        .map(\.name), ["Russian", "Ukrainian"])
        XCTAssertEqual(PronunciationCheck.candidates(for: cyrillic, bookLanguage: "uk", current: voices[0], catalog: catalog)
                        .map(\.name), ["Ukrainian", "Russian"])
        let han = PronunciationVerdict(voice: "Japanese", letters: 100, share: 0.4, scripts: [.han], failure: .named,
                                       examples: ["日"], sampleScripts: [.han, .hiragana])
        XCTAssertEqual(PronunciationCheck.candidates(for: han, bookLanguage: "ja", current: voices[3], catalog: catalog), [])
        let report = PronunciationReport(verdict: han)
        XCTAssertEqual(report.sentence, "the voice Japanese cannot read 40% of the letters in a sample of this book (Han: 日): "
                       + "it names them instead of reading them; no installed voice can read it")
        let suggested = PronunciationReport(verdict: cyrillic, suggestion: PronunciationVerdict(
            voice: "Russian", letters: 100, share: 0, scripts: [], failure: nil, examples: [], sampleScripts: [.cyrillic]))
        XCTAssertTrue(suggested.sentence.hasSuffix("it spells them letter by letter; the voice Russian can"), suggested.sentence)
    }
}
