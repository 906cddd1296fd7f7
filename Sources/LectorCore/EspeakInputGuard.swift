/// What is handed to espeak-ng 1.51 (Debian 12) is first cleared of the characters that crash it.
///
/// In 1.51, a word that a voice hands to another language's translator (English sends Tamil,
/// Korean or Malayalam letters to theirs), holding a character that language does not know,
/// makes espeak-ng fall back and free the translator it is still using: a use after free in
/// `TranslateRules` that kills the process (seen under the D-Bus fuzz: SIGSEGV in `espeak_Synth`).
/// espeak-ng 1.52 fixed it (commit 1da9ad10, "Add tertiary translator"). Each such character
/// becomes a space, one for one, so every offset of the text still holds:
/// - every unassigned, private-use or noncharacter code point: nothing to say, and what the
///   fuzz sent;
/// - the assigned ones found to trigger it with 1.51's English voice by scanning every code
///   point below U+D800 with an instrumented build: digits, signs and archaic letters of the
///   scripts English hands over (`knownTriggers`). A Tamil digit read by the Tamil voice is
///   dropped too on 1.51; words of those scripts are kept;
/// - what a second scan found with each of the 131 voices (each code point below U+D800 as a
///   word of its own, under a free() that poisons what it frees): Gurmukhi and Gujarati digits
///   and the Greek tonos with most voices (not with the voices that read them safely:
///   `exemptions`), Greek and Armenian capitals with Lojban alone (`voiceTriggers`). What is
///   cleared therefore depends on the voice; a text that may change voice itself (SSML) is
///   cleared of every voice's.
///
///     EspeakInputGuard.apply("Room \u{0BEC}", version: "1.51")   // "Room  "
///     EspeakInputGuard.apply("\u{0AE7}", version: "1.51", voice: "gmw/en")   // " "
///     EspeakInputGuard.apply("\u{0AE7}", version: "1.51", voice: "inc/gu")   // unchanged
///     EspeakInputGuard.apply("Room \u{0BEC}", version: "1.52.0") // unchanged
public enum EspeakInputGuard {
    /// Whether `version` (espeak_Info's, e.g. "1.51") has the bug: before 1.52.
    public static func isNeeded(version: String) -> Bool {
        let parts = version.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
        guard parts.count == 2 else { return true }   // unknown: guard
        return parts[0] < 1 || (parts[0] == 1 && parts[1] < 52)
    }

    /// `text` with each character that may crash espeak-ng `version` read by `voice` (its
    /// identifier, e.g. "gmw/en"; nil when the text may change language itself, as SSML can)
    /// replaced by a space.
    public static func apply(_ text: String, version: String, voice: String? = nil) -> String {
        isNeeded(version: version) ? apply(text, voice: voice) : text
    }

    /// `text` with each character that may crash espeak-ng 1.51 read by `voice` replaced by a
    /// space; for a caller that checked `isNeeded(version:)` once.
    public static func apply(_ text: String, voice: String? = nil) -> String {
        let rules = Rules(voice: voice)
        guard text.unicodeScalars.contains(where: rules.isTrigger) else { return text }
        var view = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { view.append(rules.isTrigger(scalar) ? " " : scalar) }
        return String(view)
    }

    /// What is cleared for one voice: `knownTriggers` but what it was found to read safely, and
    /// what crashes it alone. Unknown or nil: every voice's (`voiceTriggers`, all of them).
    struct Rules {
        var exempt: [ClosedRange<UInt32>] = []
        var extra: [ClosedRange<UInt32>]

        /// A variant ("gmw/en+f3") is its voice's.
        init(voice: String?) {
            guard let voice, let known = EspeakInputGuard.voices[String(voice.prefix { $0 != "+" })] else {
                extra = EspeakInputGuard.everyVoiceTriggers
                return
            }
            (exempt, extra) = known
        }

        func isTrigger(_ scalar: Unicode.Scalar) -> Bool {
            guard scalar.value >= 0x80 else { return false }
            switch scalar.properties.generalCategory {
            case .unassigned, .privateUse: return true
            default: break
            }
            if scalar.properties.isNoncharacterCodePoint { return true }
            if contains(extra, scalar.value) { return true }
            return contains(knownTriggers, scalar.value) && !contains(exempt, scalar.value)
        }
    }

    /// The voices scanned, each with its exemptions and its own triggers.
    static let voices: [String: (exempt: [ClosedRange<UInt32>], extra: [ClosedRange<UInt32>])] = {
        var voices: [String: (exempt: [ClosedRange<UInt32>], extra: [ClosedRange<UInt32>])] = [:]
        for voice in scannedVoices { voices[voice] = ([], []) }
        for (voice, ranges) in exemptions { voices[voice]?.exempt = ranges }
        for (voice, ranges) in voiceTriggers { voices[voice]?.extra = ranges }
        return voices
    }()

    /// Every voice's own triggers, merged: for a text that may change voice itself.
    static let everyVoiceTriggers: [ClosedRange<UInt32>] = {
        var merged: [ClosedRange<UInt32>] = []
        for range in voiceTriggers.values.joined().sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound + 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }()

    /// Whether sorted, disjoint `ranges` hold `value` (a binary search).
    private static func contains(_ ranges: [ClosedRange<UInt32>], _ value: UInt32) -> Bool {
        var low = 0, high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < value { low = middle + 1 } else { high = middle }
        }
        return low < ranges.count && ranges[low].contains(value)
    }

    /// Code points that trigger the crash with most voices (the first scan, with 1.51's English
    /// voice and an instrumented build; then every voice's, below), in order.
    static let knownTriggers: [ClosedRange<UInt32>] = [
        0x0380...0x0384, 0x0558...0x0558, 0x055A...0x055A, 0x055D...0x055D, 0x055F...0x055F,
        0x0589...0x058F, 0x0964...0x0965, 0x0970...0x0970, 0x09E4...0x09E5, 0x09F2...0x09FB,
        0x09FD...0x09FF, 0x0A64...0x0A6E, 0x0A76...0x0A7F, 0x0AE4...0x0AF8, 0x0AFD...0x0AFF,
        0x0B80...0x0B81, 0x0B84...0x0B84, 0x0B8B...0x0B8D, 0x0B91...0x0B91, 0x0B96...0x0B98,
        0x0B9B...0x0B9B, 0x0B9D...0x0B9D, 0x0BA0...0x0BA2, 0x0BA5...0x0BA7, 0x0BAB...0x0BAD,
        0x0BBA...0x0BBD, 0x0BC3...0x0BC5, 0x0BC9...0x0BC9, 0x0BCE...0x0BCF, 0x0BD1...0x0BD6,
        0x0BD8...0x0BFF, 0x0C80...0x0C81, 0x0C84...0x0C84, 0x0C8C...0x0C8D, 0x0C91...0x0C91,
        0x0CA9...0x0CA9, 0x0CB4...0x0CB4, 0x0CBA...0x0CBB, 0x0CC5...0x0CC5, 0x0CC9...0x0CC9,
        0x0CCE...0x0CD4, 0x0CD7...0x0CDD, 0x0CDF...0x0CDF, 0x0CE1...0x0D01, 0x0D04...0x0D04,
        0x0D0C...0x0D0D, 0x0D11...0x0D11, 0x0D29...0x0D29, 0x0D3A...0x0D3C, 0x0D45...0x0D45,
        0x0D49...0x0D49, 0x0D4F...0x0D56, 0x0D58...0x0D5F, 0x0D62...0x0D79, 0x0DC7...0x0DC9,
        0x0DCB...0x0DCE, 0x0DD5...0x0DD5, 0x0DD7...0x0DD7, 0x0DE0...0x0DF1, 0x0DF4...0x0DFF,
        0x10C6...0x10C6, 0x10C8...0x10CC, 0x10CE...0x10CF, 0x10FB...0x10FB, 0x1180...0x11A7,
        0x11C3...0x11FF, 0xA701...0xA716, 0xA720...0xA721, 0xA789...0xA78A, 0xA7CB...0xA7CF,
        0xA7D2...0xA7D2, 0xA7D4...0xA7D4, 0xA7DA...0xA7F1, 0xA806...0xA806, 0xA828...0xA83F,
        0xA874...0xA87F, 0xA8C4...0xA8C4, 0xA8C6...0xA8CF, 0xA8DA...0xA8F1, 0xA8F8...0xA8FA,
        0xA8FC...0xA8FC, 0xA92B...0xA92F, 0xA953...0xA95F, 0xA97D...0xA97F, 0xA9B3...0xA9B3,
        0xA9C0...0xA9CE, 0xA9DA...0xA9DF, 0xA9FF...0xA9FF, 0xAA37...0xAA3F, 0xAA4E...0xAA4F,
        0xAA5A...0xAA5F, 0xAA77...0xAA79, 0xAABF...0xAABF, 0xAAC1...0xAAC1, 0xAAC3...0xAADA,
        0xAADE...0xAADF, 0xAAF0...0xAAF1, 0xAAF6...0xAB00, 0xAB07...0xAB08, 0xAB0F...0xAB10,
        0xAB17...0xAB1F, 0xAB27...0xAB27, 0xAB2F...0xAB2F, 0xAB5B...0xAB5B, 0xAB6A...0xAB6F,
        0xABEB...0xABEF, 0xABFA...0xABFF, 0xD7C7...0xD7CA, 0xD7FC...0xD7FF
    ]

    /// Of `knownTriggers`' code points found by the scan of every voice, those a voice reads
    /// safely (its own script's digits: Gujarati's with the Gujarati voice). Latvian and
    /// Lingua Franca Nova crashed on a mix of Gurmukhi and Gujarati characters none of which
    /// crashed them alone: they are exempt from nothing.
    static let exemptions: [String: [ClosedRange<UInt32>]] = [
        "aav/vi": [0x0380...0x0384],
        "aav/vi-VN-x-central": [0x0380...0x0384],
        "aav/vi-VN-x-south": [0x0380...0x0384],
        "bat/lt": [0x0380...0x0384, 0x0A66...0x0A6E],
        "bat/ltg": [0x0A66...0x0A6E],
        "dra/kn": [0x0A66...0x0A6E],
        "dra/ta": [0x0A66...0x0A6E],
        "dra/te": [0x0A66...0x0A6E],
        "gmq/is": [0x0A66...0x0A6E],
        "gmq/sv": [0x0A66...0x0A6E],
        "gmw/af": [0x0380...0x0384],
        "gmw/en": [0x0380...0x0384],
        "gmw/en-029": [0x0380...0x0384],
        "gmw/en-GB-scotland": [0x0380...0x0384],
        "gmw/en-GB-x-gbclan": [0x0380...0x0384],
        "gmw/en-GB-x-gbcwmd": [0x0380...0x0384],
        "gmw/en-GB-x-rp": [0x0380...0x0384],
        "gmw/en-US": [0x0380...0x0384],
        "gmw/en-US-nyc": [0x0380...0x0384],
        "grk/el": [0x0380...0x0384],
        "grk/grc": [0x0380...0x0384],
        "inc/gu": [0x0AE6...0x0AEF],
        "inc/pa": [0x0A66...0x0A6E, 0x0AE6...0x0AEF],
        "itc/la": [0x0A66...0x0A6E],
        "poz/id": [0x0A66...0x0A6E],
        "poz/ms": [0x0A66...0x0A6E],
        "roa/an": [0x0A66...0x0A6E],
        "roa/es": [0x0A66...0x0A6E],
        "roa/es-419": [0x0A66...0x0A6E],
        "roa/it": [0x0A66...0x0A6E],
        "roa/pt": [0x0A66...0x0A6E],
        "roa/pt-BR": [0x0A66...0x0A6E],
        "roa/ro": [0x0A66...0x0A6E],
        "sem/am": [0x0A66...0x0A6E],
        "sem/ar": [0x0A66...0x0A6E],
        "urj/fi": [0x0A66...0x0A6E],
        "urj/hu": [0x0A66...0x0A6E],
        "zle/ru": [0x0A66...0x0A6E],
        "zle/ru-LV": [0x0A66...0x0A6E],
        "zle/uk": [0x0A66...0x0A6E],
        "zls/bs": [0x0380...0x0384],
        "zls/hr": [0x0380...0x0384],
        "zls/mk": [0x0380...0x0384],
        "zls/sr": [0x0380...0x0384],
        "zlw/pl": [0x0A66...0x0A6E],
    ]

    /// Code points that crash one voice and not most (Greek capitals with Lojban).
    static let voiceTriggers: [String: [ClosedRange<UInt32>]] = [
        "art/jbo": [0x037F...0x037F, 0x0385...0x0385, 0x0387...0x0387, 0x038B...0x038B, 0x038D...0x038D, 0x0392...0x0394, 0x0396...0x0396, 0x0398...0x0398, 0x039A...0x039E, 0x03A0...0x03A4, 0x03A6...0x03A8, 0x03CF...0x03CF, 0x03D2...0x03D4, 0x03D8...0x03D8, 0x03DA...0x03DA, 0x03DC...0x03DC, 0x03DE...0x03DE, 0x03E0...0x03E0, 0x03E2...0x03E2, 0x03E4...0x03E4, 0x03E6...0x03E6, 0x03E8...0x03E8, 0x03EA...0x03EA, 0x03EC...0x03EC, 0x03EE...0x03EE, 0x03F4...0x03F4, 0x03F6...0x03F7, 0x03F9...0x03FA, 0x0532...0x0534, 0x0536...0x0536, 0x0539...0x053A, 0x053C...0x0547, 0x0549...0x0554, 0x0556...0x0556],
        "dra/ml": [0x24DC...0x24DC],
        "inc/bn": [0x24DC...0x24DC],
        "inc/gu": [0x24DC...0x24DC],
        "inc/mr": [0x24DC...0x24DC],
        "inc/ne": [0x24DC...0x24DC],
        "inc/pa": [0x24DC...0x24DC],
        "sem/am": [0x24DC...0x24DC],
        "sit/my": [0x24DC...0x24DC],
    ]

    /// The voices of espeak-ng 1.51 (Debian 12) that the second scan read, by identifier: each
    /// code point below U+D800 spoken as a word of its own under a free() that poisons what it
    /// frees (docs/fuzzing.md).
    static let scannedVoices: Set<String> = [
        "aav/vi", "aav/vi-VN-x-central", "aav/vi-VN-x-south", "art/eo", "art/ia",
        "art/io", "art/jbo", "art/lfn", "art/piqd", "art/py", "art/qdb",
        "art/qya", "art/sjn", "azc/nci", "bat/lt", "bat/ltg", "bat/lv",
        "bnt/sw", "bnt/tn", "ccs/ka", "cel/cy", "cel/ga", "cel/gd", "cus/om",
        "dra/kn", "dra/ml", "dra/ta", "dra/te", "esx/kl", "eu", "gmq/da",
        "gmq/is", "gmq/nb", "gmq/sv", "gmw/af", "gmw/de", "gmw/en",
        "gmw/en-029", "gmw/en-GB-scotland", "gmw/en-GB-x-gbclan", "gmw/en-GB-x-gbcwmd",
        "gmw/en-GB-x-rp", "gmw/en-US", "gmw/en-US-nyc", "gmw/lb", "gmw/nl",
        "grk/el", "grk/grc", "inc/as", "inc/bn", "inc/bpy", "inc/gu", "inc/hi",
        "inc/kok", "inc/mr", "inc/ne", "inc/or", "inc/pa", "inc/sd", "inc/si",
        "inc/ur", "ine/hy", "ine/hyw", "ine/sq", "ira/fa", "ira/fa-Latn",
        "ira/ku", "iro/chr", "itc/la", "jpx/ja", "ko", "map/haw", "myn/quc",
        "poz/id", "poz/mi", "poz/ms", "qu", "roa/an", "roa/ca", "roa/es",
        "roa/es-419", "roa/fr", "roa/fr-BE", "roa/fr-CH", "roa/ht", "roa/it",
        "roa/pap", "roa/pt", "roa/pt-BR", "roa/ro", "sai/gn", "sem/am",
        "sem/ar", "sem/he", "sem/mt", "sit/cmn", "sit/cmn-Latn-pinyin", "sit/hak",
        "sit/my", "sit/yue", "sit/yue-Latn-jyutping", "tai/shn", "tai/th",
        "trk/az", "trk/ba", "trk/cv", "trk/kk", "trk/ky", "trk/nog", "trk/tk",
        "trk/tr", "trk/tt", "trk/ug", "trk/uz", "urj/et", "urj/fi", "urj/hu",
        "urj/smj", "zle/be", "zle/ru", "zle/ru-LV", "zle/uk", "zls/bg",
        "zls/bs", "zls/hr", "zls/mk", "zls/sl", "zls/sr", "zlw/cs", "zlw/pl",
        "zlw/sk",
    ]
}
