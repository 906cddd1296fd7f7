/// Can a voice read a book? Decided from how espeak-ng turns a sample of the book into phonemes
/// (`espeak_TextToPhonemes`, in LectorSpeech), without any C here.
///
/// What espeak-ng does with letters a voice cannot read (espeak-ng 1.51, checked): it *names*
/// them (the Japanese voice says "Chinese letter" for every kanji, switching to English for
/// "Chinese"; an English voice says "Chinese letter", "arabic meem", "hebrew shin"), *spells*
/// them (an English voice reads "привет" as "pe er i ve ie te", Greek as "kappa alpha ..."),
/// reads a code point ("letter 1 3 a 3"), *skips* them, or hands them to another language's voice
/// (a Russian voice reads English words with English, which is fine; the plain `cmn` voice turns
/// hanzi into Pinyin and reads that as English, which is not). Four signals catch these, per unit
/// of the sample:
///
/// - **spelled**: a word of two or more letters (in a script written in words; not an acronym
///   in capitals, which is spelled rightly) reads exactly as its letters read one by one (stress
///   and pauses aside);
/// - **named**: most distinct characters of a script read the same (one name for them all);
/// - **skipped**: a letter reads as nothing;
/// - **other language**: a character of a script read one by one is read through another
///   language (espeak-ng's `(en)` markers: the plain `cmn` voice reads hanzi as Pinyin in
///   English). A *word* handed to another language's voice is read, by that voice: an English
///   phrase in a Russian book, read by espeak-ng's English after its automatic switch, counts as
///   read.
///
/// The share of the sample's letters caught is the verdict; at `threshold` or more the book is
/// reported, with the best installed voice whose reading is clean (`candidates`).
///
/// ```swift
/// let sample = PronunciationSample(texts: [chapterText])
/// let readings = espeakReadings(sample.queries)        // one phoneme string per query
/// let verdict = sample.verdict(voice: "Japanese", readings: readings)
/// verdict.share   // 0.41: kanji named "Chinese letter"
/// ```
public enum PronunciationCheck {
    /// At or above this share of a sample's letters not read, a book is reported.
    public static let threshold = 0.05
    /// A sample is at most this many letters, from up to `windows` places in the text.
    public static let sampleLetters = 1200
    public static let windows = 4
    /// A sample with fewer letters says nothing (a title page).
    public static let minimumLetters = 40
    /// Voices tried for a suggestion, at most.
    public static let candidateLimit = 4

    /// Voices worth trying for text whose `verdict` was bad: the book's language's, then those of
    /// the languages that write the scripts not read, in that order; never `current`.
    public static func candidates(for verdict: PronunciationVerdict, bookLanguage: String?, current: Voice?,
                                  catalog: VoiceCatalog, limit: Int = candidateLimit) -> [Voice] {
        var languages: [String] = []
        if let bookLanguage, !bookLanguage.isEmpty { languages.append(bookLanguage) }
        for script in verdict.scripts { languages += script.languages }
        for script in verdict.sampleScripts where !verdict.scripts.contains(script) { languages += script.languages }
        var result: [Voice] = []
        for language in languages {
            guard let voice = catalog.best(for: LanguageTag.normalized(language)),
                  voice.identifier != current?.identifier,
                  !result.contains(where: { $0.identifier == voice.identifier }) else { continue }
            result.append(voice)
            if result.count == limit { break }
        }
        return result
    }
}

/// How a voice failed to read a unit of the sample.
public enum PronunciationFailure: String, Sendable, Comparable, CaseIterable {
    case named, spelled, skipped, otherLanguage = "other-language"

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// "names them instead of reading them", for sentences about letters.
    public var phrase: String {
        switch self {
        case .named: return "names them instead of reading them"
        case .spelled: return "spells them letter by letter"
        case .skipped: return "skips them"
        case .otherLanguage: return "reads them through another language"
        }
    }
}

/// A sample of a book's text cut into what espeak-ng is asked about: words of scripts written in
/// words, characters of scripts read one by one, and the letters of those words.
public struct PronunciationSample: Sendable {
    struct Unit: Sendable {
        var text: String
        var script: WritingScript
        var letters: Int
        var count: Int
        /// A word's letters, each a query (empty for a character or a one-letter word).
        var spelling: [String]
    }

    /// Each is turned into phonemes on its own; `verdict` takes the readings in this order.
    public let queries: [String]
    /// Letters in the sample.
    public let letterCount: Int
    let units: [Unit]

    public var isUsable: Bool { letterCount >= PronunciationCheck.minimumLetters }

    /// Up to `letters` letters from `PronunciationCheck.windows` places spread over `texts`
    /// (chapters in reading order), each window cut at spaces.
    public init(texts: [String], letters: Int = PronunciationCheck.sampleLetters) {
        var units: [String: Unit] = [:]
        var order: [String] = []
        var total = 0
        func add(_ text: String, _ script: WritingScript, letters: Int, spelling: [String]) {
            if units[text] == nil {
                units[text] = Unit(text: text, script: script, letters: letters, count: 0, spelling: spelling)
                order.append(text)
            }
            units[text]!.count += 1
            total += letters
        }
        for window in Self.windows(texts, letters: letters) {
            var word: [Unicode.Scalar] = [], wordScript = WritingScript.other, wordLetters = 0
            func flush() {
                defer { word = []; wordLetters = 0 }
                guard wordLetters > 0 else { return }
                var text = String.UnicodeScalarView()
                text.append(contentsOf: word)
                // An acronym (every letter a capital) is spelled by any voice, and rightly.
                let letters = word.filter { !Self.isMark($0) }
                let acronym = letters.allSatisfy { $0.properties.isUppercase }
                let spelling = wordLetters > 1 && !acronym ? letters.map { String($0) } : []
                add(String(text), wordScript, letters: wordLetters, spelling: spelling)
            }
            for scalar in window.unicodeScalars {
                if Self.isMark(scalar) {
                    if wordLetters > 0 { word.append(scalar) }
                    continue
                }
                guard scalar.properties.isAlphabetic else { flush(); continue }
                let script = WritingScript(of: scalar)
                if script.readsCharacterByCharacter {
                    flush()
                    add(String(scalar), script, letters: 1, spelling: [])
                    continue
                }
                if wordLetters > 0 && script != wordScript { flush() }
                wordScript = script
                word.append(scalar)
                wordLetters += 1
            }
            flush()
        }
        let ordered = order.map { units[$0]! }
        var queries = ordered.map(\.text)
        var asked = Set(queries)
        for unit in ordered { for letter in unit.spelling where asked.insert(letter).inserted { queries.append(letter) } }
        self.units = ordered
        self.queries = queries
        self.letterCount = total
    }

    /// Combining marks, and modifier letters such as Japanese ー (a long vowel) and 々 (the kanji
    /// before, again): part of a word, never read on their own.
    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .modifierLetter: return true
        default: return false
        }
    }

    /// Windows of about `letters / windows` letters each, evenly spread over the texts.
    static func windows(_ texts: [String], letters: Int) -> [Substring] {
        let texts = texts.filter { !$0.isEmpty }
        let sizes = texts.map { $0.unicodeScalars.count }
        let whole = sizes.reduce(0, +)
        guard whole > 0 else { return [] }
        // Letters are most of a text; scalars are a fair measure of where to cut.
        let perWindow = max(1, letters / PronunciationCheck.windows)
        if whole <= letters + letters / 4 { return texts.map { $0[...] } }
        var result: [Substring] = []
        for k in 0..<PronunciationCheck.windows {
            var start = whole * k / PronunciationCheck.windows
            var index = 0
            while start >= sizes[index] { start -= sizes[index]; index += 1 }
            let text = texts[index]
            let scalars = text.unicodeScalars
            var from = scalars.index(scalars.startIndex, offsetBy: start)
            let end = scalars.index(from, offsetBy: min(perWindow, sizes[index] - start))
            // Start after a space and end at one, so that no word is cut.
            if start > 0, let space = scalars[from..<end].firstIndex(where: { $0.properties.isWhitespace }) { from = space }
            var to = end
            if to < scalars.endIndex, let space = scalars[to...].prefix(40).firstIndex(where: { $0.properties.isWhitespace }) {
                to = space
            }
            result.append(Substring(text.unicodeScalars[from..<to]))
        }
        return result
    }

    /// The share of the sample's letters the voice does not read, from espeak-ng's `readings`
    /// of `queries` (same order) with that voice.
    public func verdict(voice: String, readings: [String]) -> PronunciationVerdict {
        var reading: [String: String] = [:]
        for (query, phonemes) in zip(queries, readings) { reading[query] = phonemes }
        // Named: in each script read character by character, the reading most of its distinct
        // characters share, if they do.
        var sharedName: [WritingScript: String] = [:]
        let characters = units.filter { $0.script.readsCharacterByCharacter }
        for (script, group) in Dictionary(grouping: characters, by: \.script) {
            let normalized = group.compactMap { reading[$0.text].map(Self.normalized) }.filter { !$0.isEmpty }
            let counts = Dictionary(normalized.map { ($0, 1) }, uniquingKeysWith: +)
            if let (name, count) = counts.max(by: { $0.value < $1.value }), count >= 2, count * 2 > group.count {
                sharedName[script] = name
            }
        }
        var failed = 0
        var byScript: [WritingScript: Int] = [:], byFailure: [PronunciationFailure: Int] = [:]
        var examples: [(String, Int)] = []
        var scripts = Set<WritingScript>()
        for unit in units {
            scripts.insert(unit.script)
            guard let failure = failure(of: unit, reading: reading, sharedName: sharedName[unit.script]) else { continue }
            let letters = unit.letters * unit.count
            failed += letters
            byScript[unit.script, default: 0] += letters
            byFailure[failure, default: 0] += letters
            examples.append((unit.text, unit.count))
        }
        let shown = examples.sorted { $0.1 > $1.1 }.prefix(6).map { $0.0.count > 16 ? String($0.0.prefix(15)) + "…" : $0.0 }
        return PronunciationVerdict(
            voice: voice, letters: letterCount,
            share: letterCount == 0 ? 0 : Double(failed) / Double(letterCount),
            scripts: byScript.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map(\.key),
            failure: byFailure.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.first?.key,
            examples: Array(shown), sampleScripts: scripts.sorted())
    }

    private func failure(of unit: Unit, reading: [String: String], sharedName: String?) -> PronunciationFailure? {
        guard let phonemes = reading[unit.text] else { return nil }
        let normalized = Self.normalized(phonemes)
        if normalized.isEmpty { return .skipped }
        if let sharedName, normalized == sharedName { return .named }
        if !unit.spelling.isEmpty {
            let letters = unit.spelling.map { reading[$0].map(Self.normalized) ?? "" }
            if letters.contains(where: \.isEmpty) { return .skipped }
            if letters.joined() == normalized { return .spelled }
        }
        // A character read one by one through another language (Pinyin read as English by
        // espeak-ng's plain `cmn` voice) is not read; a word another language's voice reads
        // (English in a Russian book: espeak-ng switches voices by itself) is.
        if unit.script.readsCharacterByCharacter, Self.switchesLanguage(phonemes) { return .otherLanguage }
        return nil
    }

    /// Phonemes without stress, length, palatalization marks, pauses and word breaks: what a spelling and a reading
    /// are compared on. Language switches stay (`(en)`).
    static func normalized(_ phonemes: String) -> String {
        String(phonemes.unicodeScalars.filter { !" \t\n'_:;|,%=!#-".unicodeScalars.contains($0) }.map(Character.init))
    }

    /// espeak-ng marks a switch of language in its phonemes as "(en)" (and back as "(ja)").
    static func switchesLanguage(_ phonemes: String) -> Bool {
        var rest = Substring(phonemes)
        while let open = rest.firstIndex(of: "(") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: ")") else { return false }
            let name = after[..<close]
            if (2...12).contains(name.count), name.first!.isLetter,
               name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) { return true }
            rest = after[after.index(after: close)...]
        }
        return false
    }
}

/// How well one voice reads a sample.
public struct PronunciationVerdict: Sendable, Equatable {
    /// The voice's name.
    public var voice: String
    /// Letters in the sample.
    public var letters: Int
    /// Share of them the voice does not read, 0 to 1.
    public var share: Double
    /// Scripts of the letters not read, most first.
    public var scripts: [WritingScript]
    /// What the voice does with most of them.
    public var failure: PronunciationFailure?
    /// A few of them (characters or words), the most frequent first.
    public var examples: [String]
    /// Every script in the sample.
    public var sampleScripts: [WritingScript]

    public init(voice: String, letters: Int, share: Double, scripts: [WritingScript], failure: PronunciationFailure?,
                examples: [String], sampleScripts: [WritingScript]) {
        self.voice = voice
        self.letters = letters
        self.share = share
        self.scripts = scripts
        self.failure = failure
        self.examples = examples
        self.sampleScripts = sampleScripts
    }

    public var isClean: Bool { share < PronunciationCheck.threshold }

    /// "38%" (at least 1% when any letter failed).
    public var percent: String {
        let value = Int((share * 100).rounded())
        return "\(share > 0 ? max(1, value) : 0)%"
    }
}

/// The check of a book with its voice, and the voice suggested when it is bad.
public struct PronunciationReport: Sendable, Equatable {
    public var verdict: PronunciationVerdict
    /// Only for a bad verdict: the best installed voice whose reading is clean, nil when none is
    /// (`tried` says which were tried).
    public var suggestion: PronunciationVerdict?
    public var tried: [String]

    public init(verdict: PronunciationVerdict, suggestion: PronunciationVerdict? = nil, tried: [String] = []) {
        self.verdict = verdict
        self.suggestion = suggestion
        self.tried = tried
    }

    public var isProblem: Bool { !verdict.isClean }

    /// The sentence for the journal, `lector status` and `lector doctor`, e.g. "the voice
    /// Japanese cannot read 38% of the letters in a sample of this book (Han: 日, 本, 語): it
    /// names them instead of reading them; no installed voice can read it".
    public var sentence: String {
        guard isProblem else { return "the voice \(verdict.voice) reads this book (a sample of \(verdict.letters) letters)" }
        let scripts = verdict.scripts.map(\.rawValue).joined(separator: ", ")
        let examples = verdict.examples.isEmpty ? "" : ": " + verdict.examples.joined(separator: ", ")
        var text = "the voice \(verdict.voice) cannot read \(verdict.percent) of the letters in a sample of this book "
            + "(\(scripts)\(examples))"
        if let failure = verdict.failure { text += ": it \(failure.phrase)" }
        if let suggestion {
            text += "; the voice \(suggestion.voice) can"
            if suggestion.share > 0 { text += " (all but \(suggestion.percent))" }
        } else {
            text += "; no installed voice can read it"
        }
        return text
    }
}
