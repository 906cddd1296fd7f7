import LectorConfig
import LectorCore
import XCTest

/// config.toml's `[pronunciation]` and `[pronunciation.LANG]`: the listener's lexicon, and the
/// errors a mistake in it gets (file:line, what to change).
final class PronunciationConfigTests: XCTestCase {
    func parsed(_ text: String) throws -> [PronunciationLexicon] {
        try Configuration.parse(text, file: "config.toml").pronunciation
    }

    func refusal(_ text: String) -> String? {
        do {
            _ = try Configuration.parse(text, file: "config.toml")
            return nil
        } catch {
            return "\(error)"
        }
    }

    func testWordsPatternsAndIPAPerLanguage() throws {
        let lexicons = try parsed(#"""
            [speech]
            rate = 1.2

            [pronunciation]
            "S.E." = "southeast"

            [pronunciation.en]
            Hermione = "/hɜːˈmaɪəni/"
            '/\bNo\.(?= ?\d)/' = "number"

            [pronunciation.de-CH]
            "z.B." = "zum Beispiel"
            """#)
        XCTAssertEqual(lexicons, [
            PronunciationLexicon(language: nil, caseSensitive: false, rules: [
                PronunciationRule(match: .word("S.E."), sayings: [.text("southeast")], source: "config.toml:5"),
            ], name: "config.toml"),
            PronunciationLexicon(language: "en", caseSensitive: false, rules: [
                PronunciationRule(match: .word("Hermione"), sayings: [.phonemes("hɜːˈmaɪəni", alphabet: "ipa")], source: "config.toml:8"),
                PronunciationRule(match: .pattern(#"\bNo\.(?= ?\d)"#), sayings: [.text("number")], source: "config.toml:9"),
            ], name: "config.toml"),
            PronunciationLexicon(language: "de-CH", caseSensitive: false, rules: [
                PronunciationRule(match: .word("z.B."), sayings: [.text("zum Beispiel")], source: "config.toml:12"),
            ], name: "config.toml"),
        ])
        let pronouncer = Pronouncer(listener: lexicons, language: "en-GB")
        XCTAssertEqual(pronouncer.prepare("Go S.E. to No. 5, Hermione.").text, "Go southeast to number 5, [[h3:'maI@ni]].")
    }

    func testNoSectionNoLexicon() throws {
        XCTAssertEqual(try parsed("[speech]\nrate = 1\n"), [])
        XCTAssertEqual(try parsed("[pronunciation.en]\n"), [])
    }

    func testMistakesNameTheLineAndWhatToChange() {
        XCTAssertEqual(refusal("[pronunciation]\nfoo = 3\n"),
                       #"config.toml:2: the pronunciation of foo must be a string: words such as "southeast", or IPA between slashes such as "/saʊθˈiːst/", not an integer"#)
        XCTAssertEqual(refusal("[pronunciation]\nfoo = \"\"\n"),
                       "config.toml:2: the pronunciation of foo is empty; write the words to say, IPA between slashes, or remove the line")
        XCTAssertEqual(refusal("[pronunciation]\n\"Xhosa\" = \"/ǁʰɔːsa/\"\n"),
                       #"config.toml:2: the IPA for Xhosa has symbols espeak-ng cannot say: "ǁ"; use other IPA symbols, or words without slashes (lector phonemes WORD shows what espeak-ng says)"#)
        XCTAssertTrue(refusal("[pronunciation]\n\n'/(unclosed/' = \"x\"\n")?
            .hasPrefix(#"config.toml:3: "/(unclosed/" is not a valid regular expression ("#) == true,
                      refusal("[pronunciation]\n\n'/(unclosed/' = \"x\"\n") ?? "accepted")
        XCTAssertEqual(refusal("[pronunciation.\"english language\"]\n"),
                       #"config.toml:1: "english language" in [pronunciation.…] is not a language tag (BCP 47, such as en, en-GB or "zh-CN")"#)
        XCTAssertEqual(refusal("[pronunciation.en]\na = \"b\"\n[pronunciation.en]\n"),
                       "config.toml:3: section [pronunciation.en] appears twice (first at line 1); merge them")
        XCTAssertEqual(refusal("[pronunciation.en]\nword = \"b\"\nword = \"c\"\n"),
                       "config.toml:3: word is set twice in [pronunciation.en] (first at line 2)")
        XCTAssertEqual(refusal("[pronunciation.en.x]\n"),
                       "config.toml:1: nested tables such as [pronunciation.…] are not supported (only [pronunciation.LANGUAGE], such as [pronunciation.en])")
        XCTAssertEqual(refusal("[pronunciation]\nword = { ipa = \"x\" }\n"),
                       "config.toml:2: inline tables ({...}) are not supported")
    }
}
