/// Chooses the espeak-ng voice for a request: by name, else by language, else the default.
///
/// ```swift
/// let catalog = VoiceCatalog(voices: installed)
/// try catalog.resolve(language: "zh-CN", voice: nil).identifier   // "sit/cmn"
/// ```
public struct VoiceCatalog: Sendable {
    public let voices: [Voice]
    public let defaultLanguage: String

    /// Tags espeak-ng does not list but people send: Chinese by region means Mandarin or Cantonese.
    /// Mandarin goes to espeak-ng's "latin as Pinyin" voice where it exists: its plain `cmn`
    /// voice (1.51, Debian 12) turns Chinese characters into Pinyin and then reads that Pinyin
    /// as English ("你好" comes out as "nee three...").
    static let aliases: [String: String] = [
        "zh": "cmn-latn-pinyin", "cmn": "cmn-latn-pinyin",
        "zh-cn": "cmn-latn-pinyin", "zh-sg": "cmn-latn-pinyin", "zh-tw": "cmn-latn-pinyin",
        "zh-hans": "cmn-latn-pinyin", "zh-hant": "cmn-latn-pinyin",
        "zh-hk": "yue", "zh-mo": "yue",
    ]

    public init(voices: [Voice], defaultLanguage: String = "en") {
        self.voices = voices
        self.defaultLanguage = defaultLanguage
    }

    public func resolve(language: String?, voice: String?) throws -> Voice {
        if let voice {
            let wanted = voice.lowercased()
            if let match = voices.first(where: {
                $0.name.lowercased() == wanted || $0.identifier.lowercased() == wanted
                    || $0.identifier.split(separator: "/").last?.lowercased() == wanted
            }) {
                return match
            }
            // What `espeak-ng -v` also accepts: a language a voice lists exactly ("en-gb", "cmn").
            if let match = voices.filter({ $0.engine == .espeak && $0.languages.contains { $0.tag.lowercased() == wanted } })
                .min(by: { a, b in Self.priority(of: wanted, in: a) < Self.priority(of: wanted, in: b) }) {
                return match
            }
            throw LectorError(.unknownVoice, "no installed voice is named \"\(voice)\" (see the Voices property)")
        }
        if let language {
            if let match = best(for: language) { return match }
            throw LectorError(.unknownLanguage, "no installed voice speaks \"\(language)\" (see the Voices property)")
        }
        if let match = best(for: defaultLanguage) ?? voices.first { return match }
        throw LectorError(.unknownVoice, "no espeak-ng voices are installed")
    }

    /// The espeak-ng voice that reads for `voice`: a neural voice's phonemes come from it, and it
    /// speaks when the neural one cannot (the default voice if its own is not installed). An
    /// espeak-ng voice reads for itself.
    public func reader(for voice: Voice) -> Voice? {
        guard let neural = voice.neural else { return voice }
        return (try? resolve(language: nil, voice: neural.espeakVoice)) ?? (try? resolve(language: nil, voice: nil))
    }

    /// The voices that can read a book written in `language`, as a listener would choose among
    /// them (Narrator1.BookVoices, the read-along page's picker): the neural voices of the book's
    /// language (same primary subtag, the rule by which a neural voice may read a book at all: an
    /// `en-US` book gets `en_GB` ones too), then espeak-ng's voices that list a tag of that
    /// language or of the one it stands for (a `zh-CN` book: Mandarin's `cmn` and Cantonese's
    /// `yue`), each group by name. `current`, the voice reading the book, is always among them:
    /// espeak-ng's voices read any text, so one of another language may have been chosen; it
    /// comes last then.
    ///
    /// ```swift
    /// catalog.voices(forBookIn: "en-US", current: nil).map(\.name)
    /// // ["joe", "English (America)", "English (Caribbean)", "English (Great Britain)", ...]
    /// ```
    public func voices(forBookIn language: String, current: Voice? = nil) -> [Voice] {
        var offered: [Voice] = []
        if let primary = LanguageTag.primary(language) {
            let fallbacks = LanguageTag.fallbacks(language)
            let espeakLanguages = Set([primary] + fallbacks.compactMap { Self.aliases[$0].flatMap(LanguageTag.primary) })
            let byName = { (a: Voice, b: Voice) in (a.name.lowercased(), a.identifier) < (b.name.lowercased(), b.identifier) }
            let neural = voices.filter { $0.engine == .piper && LanguageTag.primary($0.primaryLanguage) == primary }
            let espeak = voices.filter { voice in
                voice.engine == .espeak && voice.languages.contains { LanguageTag.primary($0.tag).map(espeakLanguages.contains) ?? false }
            }
            offered = neural.sorted(by: byName) + espeak.sorted(by: byName)
        }
        if let current, !offered.contains(current) { offered.append(current) }
        return offered
    }

    private static func priority(of tag: String, in voice: Voice) -> Int {
        voice.languages.first { $0.tag.lowercased() == tag }?.priority ?? Int.max
    }

    /// The voice listing the most specific matching tag with the lowest priority. Only
    /// espeak-ng's: a neural voice is chosen by name (`--voice`, `[voices]`, Narrator1.Voice).
    func best(for language: String) -> Voice? {
        let voices = voices.filter { $0.engine == .espeak }
        for tag in LanguageTag.fallbacks(language) {
            let candidates = Self.aliases[tag].map { [tag, $0] } ?? [tag]
            for candidate in candidates.reversed() {
                let scored = voices.compactMap { voice in
                    voice.languages.first(where: { $0.tag == candidate }).map { (voice, $0.priority) }
                }
                if let best = scored.min(by: { $0.1 < $1.1 }) { return best.0 }
            }
        }
        return nil
    }
}
