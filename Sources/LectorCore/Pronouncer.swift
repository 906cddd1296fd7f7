/// Applies pronunciation lexicons and `ssml:ph` runs to a text about to be spoken, producing what
/// espeak-ng is given and the way back to the original offsets (`TextRewrite`), so that
/// `SpeakingRange` names the book's own word ("S.E.") while espeak-ng says "southeast".
///
/// The lexicons' sayings are converted once, here: phonemes become `[[mnemonics]]` (which needs
/// the `espeakPHONEMES` synthesis flag: `Prepared.usesPhonemes`), aliases stay words. A saying
/// that cannot be converted (an unknown alphabet, an IPA symbol without an espeak-ng mnemonic)
/// gives way to the next; a rule with none left keeps the written word, and `notes` says why,
/// one line each for the log.
///
/// Precedence where matches overlap: the listener's lexicon (config.toml) first, then the book's
/// `ssml:ph`, then the book's PLS lexicons; among equals the longer match, then the earlier.
///
///     let book = PronunciationLexicon(language: "en", caseSensitive: true,
///         rules: [.init(match: .word("S.E."), sayings: [.text("southeast")], source: "lexicon.pls")], name: "lexicon.pls")
///     let pronouncer = Pronouncer(book: [book], language: "en")
///     let prepared = pronouncer.prepare("Go S.E. now", phonemeRuns: [])
///     prepared.text                                  // "Go southeast now"
///     prepared.rewrite.originalRange(start: 3, length: 9)   // (3, 4): "S.E."
public struct Pronouncer: Sendable {
    /// A replacement ready for the engine.
    struct Entry: Sendable {
        var spoken: String
        var usesPhonemes: Bool
        /// 0 the listener's, 2 the book's lexicons (1 is `ssml:ph`).
        var rank: Int
    }

    private struct WordRule: Sendable {
        var word: [Unicode.Scalar]
        var caseSensitive: Bool
        var entry: Entry
    }

    private struct PatternRule: @unchecked Sendable {
        // Swift's Regex is not Sendable; it is only ever read.
        var regex: Regex<AnyRegexOutput>
        var entry: Entry
    }

    /// Word rules by their first scalar, folded to lower case; longest first.
    private var words: [Unicode.Scalar: [WordRule]] = [:]
    private var patterns: [PatternRule] = []
    private let language: String?
    /// Rules that could not be used as written, one line each for the log.
    public private(set) var notes: [String] = []

    /// `listener`: config.toml's lexicons; `book`: the book's PLS lexicons; only those for
    /// `language` (the book's or the announcement's) are used.
    public init(listener: [PronunciationLexicon] = [], book: [PronunciationLexicon] = [], language: String?) {
        self.language = language
        for (rank, lexicons) in [(0, listener), (2, book)] {
            for lexicon in lexicons where lexicon.applies(to: language) {
                for rule in lexicon.rules { add(rule, rank: rank, caseSensitive: lexicon.caseSensitive) }
            }
        }
        for key in words.keys { words[key]?.sort { $0.word.count > $1.word.count } }
    }

    public var isEmpty: Bool { words.isEmpty && patterns.isEmpty }

    private mutating func add(_ rule: PronunciationRule, rank: Int, caseSensitive: Bool) {
        guard let (spoken, usesPhonemes) = resolve(rule) else { return }
        let entry = Entry(spoken: spoken, usesPhonemes: usesPhonemes, rank: rank)
        switch rule.match {
        case .word(let written):
            let word = Array(written.trimmingSpaces.unicodeScalars)
            guard let first = word.first else { return }
            words[Self.fold(first), default: []].append(WordRule(word: word, caseSensitive: caseSensitive, entry: entry))
        case .pattern(let source):
            do {
                patterns.append(PatternRule(regex: try Regex(source), entry: entry))
            } catch {
                notes.append("\(rule.source): the pattern /\(source)/ is not a valid regular expression; ignored")
            }
        }
    }

    /// The first saying espeak-ng can say, as engine text.
    private mutating func resolve(_ rule: PronunciationRule) -> (String, Bool)? {
        var problems: [String] = []
        for saying in rule.sayings {
            switch Self.engineText(for: saying, language: language) {
            case .success(let result): return result
            case .failure(let problem): problems.append(problem.text)
            }
        }
        let written: String
        switch rule.match {
        case .word(let word): written = word
        case .pattern(let pattern): written = "/\(pattern)/"
        }
        notes.append("\(rule.source): \"\(written)\" is read as written: " + (problems.isEmpty ? "nothing to say instead" : problems.joined(separator: "; ")))
        return nil
    }

    /// `[[mnemonics]]` for phonemes, the words themselves for an alias; or why not.
    static func engineText(for saying: Saying, language: String?) -> Result<(String, Bool), ProblemText> {
        switch saying {
        case .text(let text):
            let trimmed = text.trimmingSpaces
            guard !trimmed.isEmpty else { return .failure(ProblemText("the alias is empty")) }
            return .success((trimmed.replacing("[[", with: "[ ["), false))
        case .phonemes(let phonemes, let alphabetName):
            guard let alphabet = PhoneticAlphabet(named: alphabetName) else {
                return .failure(ProblemText("phonemes in the alphabet \"\(alphabetName)\" cannot be read (ipa and x-sampa can)"))
            }
            switch alphabet.espeakPhonemes(phonemes, language: language) {
            case .success(let mnemonics): return .success(("[[" + mnemonics + "]]", true))
            case .failure(let failure):
                let symbols = failure.symbols.map { "\"\($0)\"" }.joined(separator: ", ")
                return .failure(ProblemText("\(alphabet.rawValue) \"\(phonemes)\" has no espeak-ng equivalent for \(symbols)"))
            }
        }
    }

    struct ProblemText: Error, Sendable {
        var text: String
        init(_ text: String) { self.text = text }
    }

    // MARK: - Applying

    /// What espeak-ng is given for `text` and the way back to its offsets.
    public struct Prepared: Sendable {
        public var text: String
        public var rewrite: TextRewrite
        /// `[[…]]` phonemes are in the text: synthesize with `espeakPHONEMES`.
        public var usesPhonemes: Bool
        /// What was replaced (a range of the text given) by what, in order: for `lector phonemes`.
        public var replacements: [Replacement] = []
    }

    public struct Replacement: Sendable, Equatable {
        public var range: Range<Int>
        public var spoken: String
    }

    /// `text` with its matches replaced; `phonemeRuns` in `text`'s offsets (runs not wholly inside
    /// are left out). `notes` gets a line for each run that cannot be said.
    public func prepare(_ text: String, phonemeRuns: [PhonemeRun] = [], notes runNotes: inout [String]) -> Prepared {
        prepare(Array(text.unicodeScalars), phonemeRuns: phonemeRuns, notes: &runNotes)
    }

    public func prepare(_ text: String, phonemeRuns: [PhonemeRun] = []) -> Prepared {
        var ignored: [String] = []
        return prepare(Array(text.unicodeScalars), phonemeRuns: phonemeRuns, notes: &ignored)
    }

    public func prepare(_ scalars: [Unicode.Scalar], phonemeRuns: [PhonemeRun], notes runNotes: inout [String]) -> Prepared {
        if isEmpty && phonemeRuns.isEmpty {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars)
            let text = String(view)
            return Prepared(text: text, rewrite: TextRewrite(unchanged: text), usesPhonemes: false)
        }
        var found: [(range: Range<Int>, entry: Entry)] = []
        for run in phonemeRuns where run.range.lowerBound >= 0 && run.range.upperBound <= scalars.count && !run.range.isEmpty {
            switch Self.engineText(for: .phonemes(run.phonemes, alphabet: run.alphabet ?? "ipa"), language: language) {
            case .success(let (spoken, phonemes)): found.append((run.range, Entry(spoken: spoken, usesPhonemes: phonemes, rank: 1)))
            case .failure(let problem):
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars[run.range])
                runNotes.append("ssml:ph of \"\(String(view))\" is not used, the text is read as written: \(problem.text)")
            }
        }
        if !words.isEmpty { found += wordMatches(in: scalars) }
        if !patterns.isEmpty { found += patternMatches(in: scalars) }
        // Best first: rank, then longer, then earlier; each claims its range.
        found.sort { a, b in
            if a.entry.rank != b.entry.rank { return a.entry.rank < b.entry.rank }
            if a.range.count != b.range.count { return a.range.count > b.range.count }
            return a.range.lowerBound < b.range.lowerBound
        }
        var chosen: [(range: Range<Int>, entry: Entry)] = []
        for candidate in found where !chosen.contains(where: { $0.range.overlaps(candidate.range) }) {
            chosen.append(candidate)
        }
        chosen.sort { $0.range.lowerBound < $1.range.lowerBound }
        let usesPhonemes = chosen.contains { $0.entry.usesPhonemes }
        var rewrite = TextRewrite()
        var index = 0
        for (range, entry) in chosen {
            index = copy(scalars, from: index, to: range.lowerBound, into: &rewrite, escapingPhonemes: usesPhonemes)
            var spoken = entry.spoken
            if range.lowerBound > 0, !scalars[range.lowerBound - 1].properties.isWhitespace { spoken = " " + spoken }
            if range.upperBound < scalars.count, Self.isWordScalar(scalars[range.upperBound]) { spoken += " " }
            rewrite.replace(originalCount: range.count, with: spoken)
            index = range.upperBound
        }
        _ = copy(scalars, from: index, to: scalars.count, into: &rewrite, escapingPhonemes: usesPhonemes)
        return Prepared(text: rewrite.text, rewrite: rewrite, usesPhonemes: usesPhonemes,
                        replacements: chosen.map { Replacement(range: $0.range, spoken: $0.entry.spoken) })
    }

    /// Copies `scalars[from..<to]`; with phonemes on, a literal "[[" of the text is given a space
    /// ("[ [") so espeak-ng does not take it for phonemes.
    private func copy(_ scalars: [Unicode.Scalar], from: Int, to: Int, into rewrite: inout TextRewrite,
                      escapingPhonemes: Bool) -> Int {
        var index = from
        while index < to {
            if escapingPhonemes, scalars[index] == "[", index + 1 < to, scalars[index + 1] == "[" {
                rewrite.replace(originalCount: 2, with: "[ [")
                index += 2
            } else {
                rewrite.keep(scalars[index])
                index += 1
            }
        }
        return index
    }

    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x80 {
            let v = scalar.value
            return (0x30...0x39).contains(v) || (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v)
        }
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar.value < 0x80 {
            return (0x41...0x5A).contains(scalar.value) ? Unicode.Scalar(scalar.value + 0x20)! : scalar
        }
        let lower = scalar.properties.lowercaseMapping.unicodeScalars
        return lower.count == 1 ? lower.first! : scalar
    }

    private func wordMatches(in scalars: [Unicode.Scalar]) -> [(range: Range<Int>, entry: Entry)] {
        var result: [(range: Range<Int>, entry: Entry)] = []
        for start in scalars.indices {
            let scalar = scalars[start]
            guard !scalar.properties.isWhitespace, start == 0 || !Self.isWordScalar(scalars[start - 1]),
                  let candidates = words[Self.fold(scalar)] else { continue }
            for rule in candidates {
                let end = start + rule.word.count
                guard end <= scalars.count else { continue }
                var equal = true
                for offset in 0..<rule.word.count {
                    let a = scalars[start + offset], b = rule.word[offset]
                    if a == b { continue }
                    if rule.caseSensitive || Self.fold(a) != Self.fold(b) { equal = false; break }
                }
                guard equal else { continue }
                // Whole words only: "S.E." not inside "S.E.C"; "cat" not inside "cats".
                if start > 0, Self.isWordScalar(scalars[start - 1]) { continue }
                if end < scalars.count, Self.isWordScalar(scalars[end]) { continue }
                result.append((start..<end, rule.entry))
                break
            }
        }
        return result
    }

    private func patternMatches(in scalars: [Unicode.Scalar]) -> [(range: Range<Int>, entry: Entry)] {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        let text = String(view)
        var result: [(range: Range<Int>, entry: Entry)] = []
        for rule in patterns {
            for match in text.matches(of: rule.regex) where !match.range.isEmpty {
                let lower = text.unicodeScalars.distance(from: text.startIndex, to: match.range.lowerBound)
                let count = text.unicodeScalars.distance(from: match.range.lowerBound, to: match.range.upperBound)
                result.append((lower..<(lower + count), rule.entry))
            }
        }
        return result
    }
}
