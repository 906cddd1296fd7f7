@testable import LectorCore
import XCTest

/// IPA and X-SAMPA to espeak-ng's mnemonics, lexicon matching, and the way back from what
/// espeak-ng was given to the chapter's own words.
final class PronunciationTests: XCTestCase {
    func espeak(_ ipa: String, _ alphabet: PhoneticAlphabet = .ipa, language: String? = "en") -> String? {
        try? alphabet.espeakPhonemes(ipa, language: language).get()
    }

    // MARK: - conversion

    /// `espeak-ng -q -x` prints these for the words (en-us): what the conversion must give.
    func testIPAOfEnglishWordsGivesEspeakNGsOwnMnemonics() {
        XCTAssertEqual(espeak("ˈsaʊθiːst"), "'saUTi:st")          // southeast: s'aUTi:st
        XCTAssertEqual(espeak("kæt"), "kat")                       // cat: k'at
        XCTAssertEqual(espeak("ˈfɑːðɚ"), "'fA:D3")                 // father: f'A:D3
        XCTAssertEqual(espeak("θɔːt"), "TO:t")                     // thought
        XCTAssertEqual(espeak("ʃɪp"), "SIp")
        XCTAssertEqual(espeak("ˈmɛʒɚ"), "'mEZ3")                   // measure: m'EZ3
        XCTAssertEqual(espeak("tʃɝːtʃ"), "tS3:tS")
        XCTAssertEqual(espeak("dʒʌdʒ"), "dZVdZ")
        XCTAssertEqual(espeak("sɪŋ"), "sIN")
        XCTAssertEqual(espeak("ɡoʊt"), "goUt")
        XCTAssertEqual(espeak("hɜːˈmaɪ.ə.ni"), "h3:'maI@ni", "syllable dots are dropped")
        XCTAssertEqual(espeak("/ˌnjuː ˈjɔːk/"), ",nju: 'jO:k", "slashes dropped, words kept apart")
    }

    func testTieBarsAndAffricates() {
        XCTAssertEqual(espeak("t͡ʃɪp"), "tSIp")
        XCTAssertEqual(espeak("d͡ʒæm"), "dZam")
    }

    func testXSAMPA() {
        XCTAssertEqual(espeak("\"saUTi:st", .xSampa), "'saUTi:st")
        XCTAssertEqual(espeak("k{t", .xSampa), "kat")
        XCTAssertEqual(espeak("h3:\"maI@ni", .xSampa), "h3:'maI@ni")
        XCTAssertEqual(espeak("tSIp", .xSampa), "tSIp")
        XCTAssertEqual(espeak("dZVdZ", .xSampa), "dZVdZ")
    }

    func testSymbolsWithoutAnEquivalentFailNamingThem() {
        XCTAssertEqual(PhoneticAlphabet.ipa.espeakPhonemes("ʘaǃ", language: "en"), .failure(.init(["ʘ", "ǃ"])))
        XCTAssertEqual(PhoneticAlphabet.xSampa.espeakPhonemes("O\\a", language: "en"), .failure(.init(["\\"])))
        XCTAssertEqual(PhoneticAlphabet.ipa.espeakPhonemes("  ", language: "en"), .failure(.init(["  "])))
    }

    func testOtherLanguagesKeepTheCommonVowels() {
        XCTAssertEqual(espeak("ˈbʏ", language: "de"), nil, "ʏ has no common mnemonic: refused, never guessed")
        XCTAssertEqual(espeak("ʃøːn", language: "de"), "SY:n")
        XCTAssertEqual(espeak("u", language: "fr"), "u")
        XCTAssertEqual(espeak("u", language: "en"), "u:")
        XCTAssertEqual(espeak("bɔ̃", language: "fr"), "bO~")
    }

    func testAlphabetNames() {
        XCTAssertEqual(PhoneticAlphabet(named: "IPA"), .ipa)
        XCTAssertEqual(PhoneticAlphabet(named: "x-SAMPA"), .xSampa)
        XCTAssertNil(PhoneticAlphabet(named: "x-JEITA"))
    }

    // MARK: - matching and the way back

    let southeast = PronunciationLexicon(language: "en", caseSensitive: true, rules: [
        PronunciationRule(match: .word("S.E."), sayings: [.text("southeast")], source: "EPUB/lexicon.pls"),
        PronunciationRule(match: .word("Hermione"), sayings: [.phonemes("hɜːˈmaɪəni", alphabet: "ipa")], source: "EPUB/lexicon.pls"),
    ], name: "EPUB/lexicon.pls")

    func testAnAliasReplacesTheWordAndMapsBackToIt() {
        let pronouncer = Pronouncer(book: [southeast], language: "en-GB")
        let prepared = pronouncer.prepare("Go S.E. now")
        XCTAssertEqual(prepared.text, "Go southeast now")
        XCTAssertFalse(prepared.usesPhonemes)
        // espeak-ng's word "southeast" (3..<12) is the book's "S.E." (3..<7); "now" moves back.
        XCTAssertTrue(prepared.rewrite.originalRange(start: 3, length: 9) == (3, 4))
        XCTAssertTrue(prepared.rewrite.originalRange(start: 13, length: 3) == (8, 3))
        XCTAssertTrue(prepared.rewrite.originalRange(start: 0, length: 2) == (0, 2))
    }

    func testPhonemesAreBracketedForEspeakAndMapBack() {
        let pronouncer = Pronouncer(book: [southeast], language: "en")
        let prepared = pronouncer.prepare("Hermione, come.")
        XCTAssertEqual(prepared.text, "[[h3:'maI@ni]], come.")
        XCTAssertTrue(prepared.usesPhonemes)
        // espeak-ng reports the phoneme word at its first letter inside the brackets.
        XCTAssertTrue(prepared.rewrite.originalRange(start: 2, length: 1) == (0, 8))
        XCTAssertTrue(prepared.rewrite.originalRange(start: 16, length: 4) == (10, 4))
    }

    func testWholeWordsOnlyAndCase() {
        let pronouncer = Pronouncer(book: [southeast], language: "en")
        XCTAssertEqual(pronouncer.prepare("S.E.C. filings, s.e. wind").text, "S.E.C. filings, s.e. wind",
                       "no match inside a longer word; the book's graphemes are matched as written")
        let listener = PronunciationLexicon(language: nil, caseSensitive: false, rules: [
            PronunciationRule(match: .word("gif"), sayings: [.text("jif")], source: "config.toml:3"),
        ], name: "config.toml")
        let mine = Pronouncer(listener: [listener], language: "en")
        XCTAssertEqual(mine.prepare("A GIF, gifs and a gif.").text, "A jif, gifs and a jif.")
    }

    func testLanguageOfALexicon() {
        XCTAssertEqual(Pronouncer(book: [southeast], language: "de").prepare("S.E.").text, "S.E.")
        XCTAssertEqual(Pronouncer(book: [southeast], language: "en-US").prepare("S.E.").text, "southeast")
        XCTAssertEqual(Pronouncer(book: [southeast], language: nil).prepare("S.E.").text, "southeast")
    }

    func testTheListenerWinsOverTheBookAndLongerMatchesWin() {
        let listener = PronunciationLexicon(language: "en", caseSensitive: false, rules: [
            PronunciationRule(match: .word("S.E."), sayings: [.text("south east")], source: "config.toml:2"),
            PronunciationRule(match: .word("New York"), sayings: [.text("Gotham")], source: "config.toml:3"),
            PronunciationRule(match: .word("New"), sayings: [.text("Old")], source: "config.toml:4"),
        ], name: "config.toml")
        let pronouncer = Pronouncer(listener: [listener], book: [southeast], language: "en")
        XCTAssertEqual(pronouncer.prepare("S.E. of New York, New Jersey").text, "south east of Gotham, Old Jersey")
    }

    func testPatterns() {
        let listener = PronunciationLexicon(language: "en", caseSensitive: false, rules: [
            PronunciationRule(match: .pattern(#"\bNo\.(?= ?\d)"#), sayings: [.text("number")], source: "config.toml:2"),
        ], name: "config.toml")
        let prepared = Pronouncer(listener: [listener], language: "en").prepare("See No. 5, said No.")
        XCTAssertEqual(prepared.text, "See number 5, said No.")
        XCTAssertTrue(prepared.rewrite.originalRange(start: 4, length: 6) == (4, 3))
    }

    func testASayingThatCannotBeSaidFallsBackToTheNextOrTheWord() {
        let lexicon = PronunciationLexicon(language: "en", caseSensitive: true, rules: [
            PronunciationRule(match: .word("Xhosa"), sayings: [.phonemes("ǁʰɔːsa", alphabet: "ipa"), .text("Kosa")], source: "l.pls"),
            PronunciationRule(match: .word("Qi"), sayings: [.phonemes("tɕʰi", alphabet: "x-pinyin")], source: "l.pls"),
        ], name: "l.pls")
        let pronouncer = Pronouncer(book: [lexicon], language: "en")
        XCTAssertEqual(pronouncer.prepare("Xhosa and Qi").text, "Kosa and Qi")
        XCTAssertEqual(pronouncer.notes.count, 1)
        XCTAssertTrue(pronouncer.notes[0].contains("\"Qi\" is read as written"), pronouncer.notes[0])
        XCTAssertTrue(pronouncer.notes[0].contains("x-pinyin"), pronouncer.notes[0])
    }

    func testPhonemeRunsOfTheBook() {
        let pronouncer = Pronouncer(language: "en")
        var notes: [String] = []
        let text = Array("Turn S.E. at ʘ.".unicodeScalars)
        let prepared = pronouncer.prepare(text, phonemeRuns: [
            PhonemeRun(range: 5..<9, phonemes: "saʊθˈiːst", alphabet: "ipa"),
            PhonemeRun(range: 13..<14, phonemes: "ʘ", alphabet: "ipa"),
        ], notes: &notes)
        XCTAssertEqual(prepared.text, "Turn [[saUT'i:st]] at ʘ.")
        XCTAssertEqual(notes.count, 1)
        XCTAssertTrue(prepared.rewrite.originalRange(start: 7, length: 9) == (5, 4))
    }

    func testLiteralBracketsAreNotTakenForPhonemes() {
        let prepared = Pronouncer(book: [southeast], language: "en").prepare("[[x]] Hermione")
        XCTAssertEqual(prepared.text, "[ [x]] [[h3:'maI@ni]]")
        XCTAssertTrue(prepared.rewrite.originalRange(start: 9, length: 3) == (6, 8))
    }

    func testEngineTextKeepsItsPausesAndMapsToChapterOffsets() {
        var notes: [String] = []
        let pronouncer = Pronouncer(book: [southeast], language: "en")
        let chapter = Array("Head S.E. way\nThen on".unicodeScalars)
        let prepared = EngineText.prepare(chapter[5...], endsPhrase: false, pronouncer: pronouncer, notes: &notes)
        XCTAssertEqual(prepared.text, "southeast way；Then on，")
        XCTAssertTrue(prepared.rewrite.originalRange(start: 0, length: 9) == (0, 4))
        XCTAssertTrue(prepared.rewrite.originalRange(start: 14, length: 4) == (9, 4))
        let plain = EngineText.prepare(chapter[...], endsPhrase: true, pronouncer: nil, notes: &notes)
        XCTAssertEqual(plain.text, EngineText.render(chapter[...], endsPhrase: true))
        XCTAssertTrue(plain.rewrite.isIdentity)
    }

    func testRewritesChainBackToTheClientsText() {
        let digits = NumberReading.rewrite("PIN 12 S.E.", mode: .digits, language: "en")
        XCTAssertEqual(digits.text, "PIN 1 2 S.E.")
        let prepared = Pronouncer(book: [southeast], language: "en").prepare(digits.text)
        let both = prepared.rewrite.applied(after: digits)
        XCTAssertEqual(prepared.text, "PIN 1 2 southeast")
        XCTAssertTrue(both.originalRange(start: 8, length: 9) == (7, 4), "\(both.originalRange(start: 8, length: 9))")
        XCTAssertTrue(both.originalRange(start: 6, length: 1) == (5, 1))
    }
}

/// What a lexicon costs narration: every segment goes through `Pronouncer.prepare` on the loop.
final class PronouncerCostTests: XCTestCase {
    func testALargeLexiconCostsLittlePerSegment() {
        // 5000 words with IPA, 50 patterns: far beyond a book's PLS or a listener's config.
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        var rules: [PronunciationRule] = []
        for index in 0..<5000 {
            let word = String((0..<6).map { letters[(index * 7 + $0 * 13 + index / 26) % 26] })
            rules.append(PronunciationRule(match: .word(word), sayings: [.phonemes("ˈsaʊθiːst", alphabet: "ipa")], source: "bench"))
        }
        for index in 0..<50 {
            rules.append(PronunciationRule(match: .pattern("\\bzz\(index)q\\b"), sayings: [.text("x")], source: "bench"))
        }
        let lexicon = PronunciationLexicon(language: "en", caseSensitive: false, rules: rules, name: "bench")
        var clock = ContinuousClock.now
        let pronouncer = Pronouncer(listener: [lexicon], language: "en")
        let built = ContinuousClock.now - clock
        let segment = Array(String(repeating: "The quiet river runs past the old mill and the green fields. ", count: 10).unicodeScalars)
        var notes: [String] = []
        clock = ContinuousClock.now
        for _ in 0..<20 { _ = pronouncer.prepare(segment, phonemeRuns: [], notes: &notes) }
        let perSegment = (ContinuousClock.now - clock) / 20
        let wordsOnly = Pronouncer(listener: [PronunciationLexicon(language: "en", caseSensitive: false,
                                                                   rules: Array(rules.prefix(5000)), name: "bench")], language: "en")
        clock = ContinuousClock.now
        for _ in 0..<20 { _ = wordsOnly.prepare(segment, phonemeRuns: [], notes: &notes) }
        let wordsPerSegment = (ContinuousClock.now - clock) / 20
        print("pronouncer: 5050 rules built in \(built), a \(segment.count)-scalar segment prepared in \(perSegment)"
              + " (\(wordsPerSegment) with the 5000 words alone)")
        XCTAssertLessThan(perSegment, .milliseconds(200), "a segment with a large lexicon holds the loop")
    }
}
