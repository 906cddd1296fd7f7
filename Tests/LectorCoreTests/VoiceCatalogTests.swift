import LectorCore
import XCTest

/// Voices as espeak-ng 1.51 (Debian 12) lists them; enough of them to exercise matching.
private let installed = [
    Voice(name: "English_(Great_Britain)", identifier: "gmw/en",
          languages: [.init(tag: "en-gb", priority: 2), .init(tag: "en", priority: 2)], gender: .male),
    Voice(name: "English_(America)", identifier: "gmw/en-US",
          languages: [.init(tag: "en-us", priority: 2), .init(tag: "en", priority: 3)], gender: .male),
    Voice(name: "English_(Caribbean)", identifier: "gmw/en-029",
          languages: [.init(tag: "en-029", priority: 5), .init(tag: "en", priority: 10)], gender: .male),
    Voice(name: "Chinese_(Cantonese)", identifier: "sit/yue",
          languages: [.init(tag: "yue", priority: 5), .init(tag: "zh-yue", priority: 5), .init(tag: "zh", priority: 8)], gender: .male),
    Voice(name: "Chinese_(Mandarin,_latin_as_English)", identifier: "sit/cmn",
          languages: [.init(tag: "cmn", priority: 5), .init(tag: "zh-cmn", priority: 5), .init(tag: "zh", priority: 5)], gender: .male),
    Voice(name: "German", identifier: "gmw/de", languages: [.init(tag: "de", priority: 5)], gender: .male),
]

/// Debian 12 also has Mandarin with Latin read as Pinyin, the one that reads Chinese characters right.
private let withPinyin = installed + [
    Voice(name: "Chinese_(Mandarin,_latin_as_Pinyin)", identifier: "sit/cmn-Latn-pinyin",
          languages: [.init(tag: "cmn-latn-pinyin", priority: 5), .init(tag: "zh-cmn", priority: 5), .init(tag: "zh", priority: 5)],
          gender: .male),
]

final class VoiceCatalogTests: XCTestCase {
    let catalog = VoiceCatalog(voices: installed)

    func testLanguageTagsPickTheBestVoice() throws {
        XCTAssertEqual(try catalog.resolve(language: "en-GB", voice: nil).identifier, "gmw/en")
        XCTAssertEqual(try catalog.resolve(language: "en-US", voice: nil).identifier, "gmw/en-US")
        XCTAssertEqual(try catalog.resolve(language: "en_us", voice: nil).identifier, "gmw/en-US")
        XCTAssertEqual(try catalog.resolve(language: "en", voice: nil).identifier, "gmw/en")
        XCTAssertEqual(try catalog.resolve(language: "de-AT", voice: nil).identifier, "gmw/de", "falls back to the primary subtag")
    }

    func testChineseRegionsMapToMandarinOrCantonese() throws {
        XCTAssertEqual(try catalog.resolve(language: "zh-CN", voice: nil).identifier, "sit/cmn")
        XCTAssertEqual(try catalog.resolve(language: "zh-TW", voice: nil).identifier, "sit/cmn")
        XCTAssertEqual(try catalog.resolve(language: "zh-HK", voice: nil).identifier, "sit/yue")
        XCTAssertEqual(try catalog.resolve(language: "zh", voice: nil).identifier, "sit/cmn", "lowest priority wins")
    }

    func testMandarinPrefersThePinyinVoiceWhenInstalled() throws {
        let catalog = VoiceCatalog(voices: withPinyin)
        for tag in ["zh", "zh-CN", "zh-TW", "cmn", "zh-Hans"] {
            XCTAssertEqual(try catalog.resolve(language: tag, voice: nil).identifier, "sit/cmn-Latn-pinyin", tag)
        }
        XCTAssertEqual(try catalog.resolve(language: "zh-HK", voice: nil).identifier, "sit/yue")
        XCTAssertEqual(try catalog.resolve(language: nil, voice: "cmn").identifier, "sit/cmn", "a named voice is that voice")
    }

    func testVoicesByNameOrIdentifier() throws {
        XCTAssertEqual(try catalog.resolve(language: nil, voice: "german").identifier, "gmw/de")
        XCTAssertEqual(try catalog.resolve(language: nil, voice: "gmw/en-US").identifier, "gmw/en-US")
        XCTAssertEqual(try catalog.resolve(language: nil, voice: "en-029").identifier, "gmw/en-029")
        XCTAssertEqual(try catalog.resolve(language: "de", voice: "yue").identifier, "sit/yue", "a named voice wins")
    }

    func testVoicesByALanguageTheyListAsEspeakNgAccepts() throws {
        // config.toml's `en = "en-gb"`: "en-gb" is no voice's name or file, but gmw/en lists it.
        XCTAssertEqual(try catalog.resolve(language: "en", voice: "en-gb").identifier, "gmw/en")
        XCTAssertEqual(try catalog.resolve(language: nil, voice: "EN-US").identifier, "gmw/en-US")
        XCTAssertEqual(try catalog.resolve(language: nil, voice: "zh").identifier, "sit/cmn", "lowest priority wins")
    }

    func testUnknownVoiceAndLanguageHaveTheirOwnErrors() {
        XCTAssertThrowsError(try catalog.resolve(language: nil, voice: "klingon")) {
            XCTAssertEqual(($0 as? LectorError)?.busName, "io.github.lector.Error.UnknownVoice")
        }
        XCTAssertThrowsError(try catalog.resolve(language: "xx-YY", voice: nil)) {
            XCTAssertEqual(($0 as? LectorError)?.busName, "io.github.lector.Error.UnknownLanguage")
        }
    }

    func testDefaultIsEnglishOrFirstVoice() throws {
        XCTAssertEqual(try catalog.resolve(language: nil, voice: nil).identifier, "gmw/en")
        let noEnglish = VoiceCatalog(voices: [installed[5]])
        XCTAssertEqual(try noEnglish.resolve(language: nil, voice: nil).identifier, "gmw/de")
        XCTAssertThrowsError(try VoiceCatalog(voices: []).resolve(language: nil, voice: nil))
    }

    /// What a book's listener may choose from (Narrator1.BookVoices): its language's voices,
    /// natural ones first, and always the voice reading it.
    func testABooksVoicesAreItsLanguagesNeuralOnesFirstAndTheCurrentOne() {
        let joe = Voice(name: "joe", identifier: "/voices/en_US-joe-medium.onnx", languages: [.init(tag: "en-us", priority: 5)],
                        gender: .unknown, neural: .init(modelPath: "/voices/en_US-joe-medium.onnx", espeakVoice: "en-us",
                                                        quality: "medium", sampleRate: 22050))
        let alba = Voice(name: "alba", identifier: "/voices/en_GB-alba-medium.onnx", languages: [.init(tag: "en-gb", priority: 5)],
                         gender: .unknown, neural: .init(modelPath: "/voices/en_GB-alba-medium.onnx", espeakVoice: "en-gb",
                                                         quality: "medium", sampleRate: 22050))
        let thorsten = Voice(name: "thorsten", identifier: "/voices/de_DE-thorsten-medium.onnx", languages: [.init(tag: "de", priority: 5)],
                             gender: .unknown, neural: .init(modelPath: "/voices/de_DE-thorsten-medium.onnx", espeakVoice: "de",
                                                             quality: "medium", sampleRate: 22050))
        let catalog = VoiceCatalog(voices: withPinyin + [thorsten, joe, alba])
        let english = ["alba", "joe", "English_(America)", "English_(Caribbean)", "English_(Great_Britain)"]
        XCTAssertEqual(catalog.voices(forBookIn: "en-US").map(\.name), english, "an en_GB voice reads an en-US book too")
        XCTAssertEqual(catalog.voices(forBookIn: "EN").map(\.name), english)
        XCTAssertEqual(catalog.voices(forBookIn: "de-AT").map(\.name), ["thorsten", "German"])
        XCTAssertEqual(catalog.voices(forBookIn: "zh-CN").map(\.identifier), ["sit/yue", "sit/cmn", "sit/cmn-Latn-pinyin"],
                       "Chinese books: the Mandarin and Cantonese voices")
        // The voice reading it is always offered: last when it is of another language.
        let german = catalog.voices(forBookIn: "en", current: installed[5])
        XCTAssertEqual(german.map(\.name), english + ["German"])
        XCTAssertEqual(catalog.voices(forBookIn: "en", current: joe).map(\.name), english, "listed once")
        XCTAssertEqual(catalog.voices(forBookIn: "xx", current: joe).map(\.name), ["joe"], "a language no voice speaks")
        XCTAssertEqual(catalog.voices(forBookIn: "", current: nil).map(\.name), [])
    }

    func testLanguageTagShape() {
        for good in ["en", "en-GB", "zh-Hant-TW", "cmn", "es-419", "pt_BR"] { XCTAssertTrue(LanguageTag.isWellFormed(good), good) }
        for bad in ["", "e", "en-", "en_GB!!", "toolongtag", "en--gb", "1en", "en_"] { XCTAssertFalse(LanguageTag.isWellFormed(bad), bad) }
        XCTAssertEqual(LanguageTag.fallbacks("zh_Hant-TW"), ["zh-hant-tw", "zh-hant", "zh"])
        XCTAssertEqual(LanguageTag.primary("pt_BR"), "pt")
        XCTAssertNil(LanguageTag.primary(""))
    }
}
