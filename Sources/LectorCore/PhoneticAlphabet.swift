/// The alphabets a book or a listener may write a pronunciation in, and their conversion to what
/// espeak-ng reads between `[[` and `]]` with the `espeakPHONEMES` flag: its own ASCII phoneme
/// mnemonics (`espeak-ng -x` prints the same ones).
///
/// espeak-ng ignores SSML `<phoneme>` and knows no IPA on input, so IPA (EPUB 3's `ssml:ph` with
/// `ssml:alphabet="ipa"`, PLS lexicons, config.toml's `/…/`) and X-SAMPA (turned into IPA first)
/// are mapped symbol by symbol, longest symbol first, onto the mnemonics espeak-ng's phoneme
/// tables share across languages, with English's vowels where English differs (`æ` is `a` in
/// English, `ɒ` is `0`). A mnemonic espeak-ng does not know makes it drop the rest of the word
/// (`[[k'{t]]` says only "k"), so a symbol without an equivalent fails the whole conversion and
/// the caller falls back to an alias or the written word instead.
///
///     PhoneticAlphabet.ipa.espeakPhonemes("saʊθˈiːst", language: "en")    // .success("saUT'i:st")
///     PhoneticAlphabet.xSampa.espeakPhonemes("saUT\"i:st", language: "en") // .success("saUT'i:st")
///     PhoneticAlphabet.ipa.espeakPhonemes("ʘa", language: "en")           // .failure(["ʘ"])
public enum PhoneticAlphabet: String, Sendable, Equatable, CaseIterable {
    case ipa
    case xSampa = "x-sampa"

    /// The alphabet an `ssml:alphabet` or PLS `alphabet` names, case aside ("IPA", "x-SAMPA").
    public init?(named name: String) {
        let lowered = name.trimmingSpaces.lowercased()
        switch lowered {
        case "ipa": self = .ipa
        case "x-sampa", "xsampa", "sampa": self = .xSampa
        default: return nil
        }
    }

    /// Symbols with no espeak-ng equivalent, as written, when conversion fails.
    public struct Unconvertible: Error, Equatable, Sendable {
        public var symbols: [String]
        public init(_ symbols: [String]) { self.symbols = symbols }
    }

    /// `phonemes` as espeak-ng mnemonics for a voice of `language` (nil: the common ones).
    public func espeakPhonemes(_ phonemes: String, language: String? = nil) -> Result<String, Unconvertible> {
        switch self {
        case .ipa: return Self.ipaToEspeak(phonemes, language: language)
        case .xSampa:
            switch Self.xSampaToIPA(phonemes) {
            case .success(let ipa): return Self.ipaToEspeak(ipa, language: language)
            case .failure(let failure): return .failure(failure)
            }
        }
    }

    // MARK: - IPA

    /// Symbols espeak-ng's tables share, IPA → mnemonic. Multi-scalar keys (affricates,
    /// diphthongs, long vowels) are tried before single ones.
    static let commonIPA: [String: String] = [
        // consonants
        "p": "p", "b": "b", "t": "t", "d": "d", "k": "k", "g": "g", "ɡ": "g", "q": "q", "ʔ": "?",
        "m": "m", "n": "n", "ŋ": "N", "ɲ": "n^", "ɱ": "m",
        "f": "f", "v": "v", "θ": "T", "ð": "D", "s": "s", "z": "z", "ʃ": "S", "ʒ": "Z",
        "ç": "C", "x": "x", "ɣ": "Q", "χ": "X", "h": "h", "ɦ": "h", "β": "B", "ɸ": "F",
        "l": "l", "ɫ": "l", "ʎ": "l^", "ɬ": "l#", "r": "r", "ɹ": "r", "ɾ": "*", "ʁ": "r", "ʀ": "r", "ɻ": "r",
        "j": "j", "w": "w", "ʍ": "w", "ɥ": "j",
        "tʃ": "tS", "t͡ʃ": "tS", "dʒ": "dZ", "d͡ʒ": "dZ", "t͡s": "ts", "d͡z": "dz",
        // vowels
        "i": "i", "iː": "i:", "ɪ": "I", "e": "e", "eː": "e:", "ɛ": "E", "ɛː": "E:", "æ": "a", "a": "a", "aː": "a:",
        "ɑ": "A", "ɑː": "A:", "ɒ": "0", "ɔ": "O", "ɔː": "O:", "o": "o", "oː": "o:", "ʊ": "U", "u": "u", "uː": "u:",
        "ʌ": "V", "ə": "@", "ɚ": "3", "ɜ": "3", "ɜː": "3:", "ɝ": "3:", "ɝː": "3:", "ɐ": "a#", "ɨ": "i\"", "ʉ": "u\"", "ɯ": "u\"",
        "y": "y", "yː": "y:", "ø": "Y", "øː": "Y:", "œ": "W", "ɘ": "@", "ɵ": "@",
        // diphthongs
        "aɪ": "aI", "eɪ": "eI", "ɔɪ": "OI", "aʊ": "aU", "oʊ": "oU", "əʊ": "oU", "ɪə": "i@", "eə": "e@", "ɛə": "e@",
        "ʊə": "U@",
        // prosody
        "ˈ": "'", "ˌ": ",", "ː": ":", "ˑ": "", ".": "", "‿": "", "͡": "", " ": " ",
        // nasal vowels: a combining tilde after the vowel
        "\u{0303}": "~",
    ]

    /// Where English's tables differ: its [u:] and [i:] are long; its unstressed short /i/ is `i`.
    static let englishIPA: [String: String] = [
        "u": "u:", "i": "i", "o": "oU", "ɔ": "O:", "ɑ": "A:", "e": "E", "ɜ": "3:",
    ]

    /// Marks espeak-ng would not know and that change nothing a listener hears.
    static let ignoredIPA: Set<Unicode.Scalar> = [
        "/", "[", "]", "\u{0329}", "\u{032F}", "\u{0361}", "\u{035C}", "ʰ", "ʲ", "ʷ", "\u{0325}", "\u{030A}", "\u{0339}",
    ]

    static func ipaToEspeak(_ phonemes: String, language: String?) -> Result<String, Unconvertible> {
        let english = language.map { $0.lowercased().hasPrefix("en") } ?? false
        let scalars = Array(phonemes.unicodeScalars)
        var result = ""
        var unknown: [String] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\u{2018}" || scalar == "'" { result += "'"; index += 1; continue }   // typewriter stress
            if scalar == "," && index + 1 < scalars.count && scalars[index + 1] != " " { result += ","; index += 1; continue }
            if scalar.properties.isWhitespace {
                if !result.hasSuffix(" ") && !result.isEmpty { result += " " }
                index += 1
                continue
            }
            var matched = false
            for length in stride(from: min(3, scalars.count - index), through: 1, by: -1) {
                var key = String.UnicodeScalarView()
                key.append(contentsOf: scalars[index..<(index + length)])
                let symbol = String(key)
                if let mapped = (english ? englishIPA[symbol] : nil) ?? commonIPA[symbol] {
                    result += mapped
                    index += length
                    matched = true
                    break
                }
            }
            if matched { continue }
            if ignoredIPA.contains(scalar) {
                index += 1
                continue
            }
            unknown.append(String(scalar))
            index += 1
        }
        while result.hasSuffix(" ") { result.removeLast() }
        if !unknown.isEmpty { return .failure(Unconvertible(unknown)) }
        if result.isEmpty { return .failure(Unconvertible([phonemes])) }
        return .success(result)
    }

    // MARK: - X-SAMPA

    /// X-SAMPA → IPA for the symbols `commonIPA` knows (and a few more it then refuses by name).
    static let xSampaToIPATable: [String: String] = [
        "p": "p", "b": "b", "t": "t", "d": "d", "k": "k", "g": "ɡ", "q": "q", "?": "ʔ",
        "m": "m", "n": "n", "N": "ŋ", "J": "ɲ", "F": "ɱ",
        "f": "f", "v": "v", "T": "θ", "D": "ð", "s": "s", "z": "z", "S": "ʃ", "Z": "ʒ",
        "C": "ç", "x": "x", "G": "ɣ", "X": "χ", "h": "h", "h\\": "ɦ", "B": "β", "p\\": "ɸ",
        "l": "l", "5": "ɫ", "L": "ʎ", "K": "ɬ", "r": "r", "r\\": "ɹ", "4": "ɾ", "R": "ʁ", "R\\": "ʀ", "r\\`": "ɻ",
        "j": "j", "w": "w", "W": "ʍ", "H": "ɥ",
        "tS": "tʃ", "dZ": "dʒ", "ts": "ts", "dz": "dz",
        "i": "i", "I": "ɪ", "e": "e", "E": "ɛ", "{": "æ", "a": "a", "A": "ɑ", "Q": "ɒ", "O": "ɔ", "o": "o",
        "U": "ʊ", "u": "u", "V": "ʌ", "@": "ə", "@`": "ɚ", "3": "ɜ", "3`": "ɝ", "6": "ɐ", "1": "ɨ", "}": "ʉ",
        "M": "ɯ", "y": "y", "2": "ø", "9": "œ", "@\\": "ɘ", "8": "ɵ",
        "\"": "ˈ", "%": "ˌ", ":": "ː", ":\\": "ˑ", ".": ".", "_": "", "~": "\u{0303}", " ": " ",
        "_h": "ʰ", "_j": "ʲ", "_w": "ʷ", "=": "\u{0329}", "_^": "\u{032F}", "-": "", "'": "ʲ",
    ]

    static func xSampaToIPA(_ text: String) -> Result<String, Unconvertible> {
        let scalars = Array(text.unicodeScalars)
        var result = ""
        var unknown: [String] = []
        var index = 0
        while index < scalars.count {
            var matched = false
            for length in stride(from: min(3, scalars.count - index), through: 1, by: -1) {
                var key = String.UnicodeScalarView()
                key.append(contentsOf: scalars[index..<(index + length)])
                if let ipa = xSampaToIPATable[String(key)] {
                    result += ipa
                    index += length
                    matched = true
                    break
                }
            }
            if !matched {
                if scalars[index].properties.isWhitespace { result += " " } else { unknown.append(String(scalars[index])) }
                index += 1
            }
        }
        return unknown.isEmpty ? .success(result) : .failure(Unconvertible(unknown))
    }
}

