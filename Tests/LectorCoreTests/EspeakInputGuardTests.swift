import LectorCore
import XCTest

/// espeak-ng 1.51 crashes (a use after free in TranslateRules) on characters a voice hands to
/// another language's translator that it does not know; these are the texts found to crash it
/// (the fuzz's, and the smallest ones), cleared one character for one before 1.52 only.
final class EspeakInputGuardTests: XCTestCase {
    func testCrashingCharactersBecomeSpacesAndOffsetsHold() {
        let texts = [
            "Room \u{0BEC}",                      // Tamil digit six alone
            "\u{1180} jamo",                       // an archaic Hangul vowel
            "\u{A3061}\u{A716}",                    // unassigned, then a modifier tone letter
            "Price \u{09F3}5 \u{E000} \(Character(Unicode.Scalar(0xFDD0)!)).",   // Bengali rupee sign, private use, noncharacter
            "\u{0558}\u{0964}\u{0D4F}\u{AB6A}",
        ]
        for text in texts {
            let guarded = EspeakInputGuard.apply(text, version: "1.51")
            XCTAssertEqual(guarded.unicodeScalars.count, text.unicodeScalars.count, text.debugDescription)
            for (before, after) in zip(text.unicodeScalars, guarded.unicodeScalars) where before != after {
                XCTAssertEqual(after, " ", "\(text.debugDescription): U+\(String(before.value, radix: 16)) became \(after)")
            }
            XCTAssertFalse(guarded.unicodeScalars.contains { $0.value >= 0x80 && !$0.properties.isWhitespace && $0 != "." },
                           "\(text.debugDescription) → \(guarded.debugDescription)")
        }
        XCTAssertEqual(EspeakInputGuard.apply("Room \u{0BEC}", version: "1.51"), "Room  ")
    }

    /// The second scan, of every voice (docs/fuzzing.md): what crashes depends on the voice.
    /// Gurmukhi and Gujarati digits crash English and most voices; a Greek capital only Lojban;
    /// the voice whose script it is reads its digits safely and keeps them. Without a voice (SSML,
    /// which can change language itself) everything any voice crashes on is cleared.
    func testWhatIsClearedDependsOnTheVoice() {
        XCTAssertEqual(EspeakInputGuard.apply("Room \u{0A66} and \u{0AE6}", version: "1.51", voice: "gmw/en"), "Room   and  ")
        XCTAssertEqual(EspeakInputGuard.apply("Room \u{0A66}", version: "1.51", voice: "gmw/en+f3"), "Room  ", "a variant is its voice")
        XCTAssertEqual(EspeakInputGuard.apply("\u{0AE7}\u{0AE8}", version: "1.51", voice: "inc/gu"), "\u{0AE7}\u{0AE8}")
        XCTAssertEqual(EspeakInputGuard.apply("ΣΑΒ", version: "1.51", voice: "gmw/en"), "ΣΑΒ")
        XCTAssertEqual(EspeakInputGuard.apply("ΣΑΒ", version: "1.51", voice: "art/jbo"), " Α ")
        XCTAssertEqual(EspeakInputGuard.apply("ΣΑΒ", version: "1.51"), " Α ", "no voice: every voice's")
        XCTAssertEqual(EspeakInputGuard.apply("ΣΑΒ \u{0A66}", version: "1.52.0", voice: "art/jbo"), "ΣΑΒ \u{0A66}")
    }

    func testWordsOfEveryScriptAndOrdinaryTextAreKept() {
        for text in ["नमस्ते दुनिया", "안녕하세요", "வணக்கம்", "Ελληνικά ϖ", "Привет", "日本語のテキスト", "café — “quoted” 🙂 35,20 €",
                     "Hello, world.\n\nA second paragraph."] {
            XCTAssertEqual(EspeakInputGuard.apply(text, version: "1.51", voice: "gmw/en"), text)
        }
    }

    func testOnlyVersionsBefore152AreGuarded() {
        XCTAssertTrue(EspeakInputGuard.isNeeded(version: "1.51"))
        XCTAssertTrue(EspeakInputGuard.isNeeded(version: "1.51.1"))
        XCTAssertTrue(EspeakInputGuard.isNeeded(version: "1.49.2"))
        XCTAssertTrue(EspeakInputGuard.isNeeded(version: ""))
        XCTAssertFalse(EspeakInputGuard.isNeeded(version: "1.52.0"))
        XCTAssertFalse(EspeakInputGuard.isNeeded(version: "1.52-dev"))
        XCTAssertFalse(EspeakInputGuard.isNeeded(version: "2.0"))
        XCTAssertEqual(EspeakInputGuard.apply("Room \u{0BEC}", version: "1.52.0"), "Room \u{0BEC}")
    }
}
