/// What to say for a word instead of what is written: phonemes, or other words (an alias).
public enum Saying: Sendable, Equatable {
    /// Phonemes as written in `alphabet` (`ipa`, `x-sampa`: see `PhoneticAlphabet`); an alphabet
    /// Lector cannot read makes the saying unusable, never a wrong sound.
    case phonemes(String, alphabet: String)
    /// Words espeak-ng reads as text: "southeast" for "S.E.".
    case text(String)
}

/// One entry of a lexicon: a word (or a regular expression) and how to say it.
///
///     PronunciationRule(match: .word("S.E."), sayings: [.text("southeast")], source: "EPUB/lexicon.pls")
public struct PronunciationRule: Sendable, Equatable {
    public enum Match: Sendable, Equatable {
        /// The word as written, matched between non-letters (it may hold dots or spaces: "S.E.",
        /// "New York").
        case word(String)
        /// A regular expression (Swift `Regex` syntax, as config.toml's `'/…/'` keys).
        case pattern(String)
    }

    public var match: Match
    /// In order of preference: the first espeak-ng can say is said (a PLS lexeme's phonemes
    /// first, then its aliases, as the book lists them).
    public var sayings: [Saying]
    /// Where it was written, for the log: "EPUB/lexicon.pls", "config.toml:12".
    public var source: String

    public init(match: Match, sayings: [Saying], source: String) {
        self.match = match
        self.sayings = sayings
        self.source = source
    }
}

/// A set of rules for one language (or all): a PLS lexicon of the book, or config.toml's
/// `[pronunciation]` sections.
public struct PronunciationLexicon: Sendable, Equatable {
    /// The language it is for (`xml:lang`, the config section's tag); nil for every language.
    public var language: String?
    /// PLS graphemes are matched as written; the listener's words in any case.
    public var caseSensitive: Bool
    public var rules: [PronunciationRule]
    /// For the log: the lexicon's archive path, or the config file.
    public var name: String

    public init(language: String?, caseSensitive: Bool, rules: [PronunciationRule], name: String) {
        self.language = language
        self.caseSensitive = caseSensitive
        self.rules = rules
        self.name = name
    }

    /// Whether the lexicon applies to text in `language`: a lexicon for `en` applies to `en-GB`
    /// and the reverse, one for every language always, an unknown text language to every lexicon.
    public func applies(to language: String?) -> Bool {
        guard let mine = self.language?.lowercased(), !mine.isEmpty, let theirs = language?.lowercased() else { return true }
        let a = mine.replacing("_", with: "-"), b = theirs.replacing("_", with: "-")
        return a == b || a.hasPrefix(b + "-") || b.hasPrefix(a + "-")
            || a.split(separator: "-").first == b.split(separator: "-").first
    }
}

/// An element of a chapter with an EPUB 3 `ssml:ph` attribute: its whole text is said as these
/// phonemes. Offsets are the chapter text's (Unicode scalars, as `SpeakingRange`'s).
///
///     <span ssml:alphabet="ipa" ssml:ph="saʊθˈiːst">S.E.</span>
///     // PhonemeRun(range: 23..<27, phonemes: "saʊθˈiːst", alphabet: "ipa")
public struct PhonemeRun: Sendable, Equatable {
    public var range: Range<Int>
    public var phonemes: String
    /// As the book wrote it (the nearest `ssml:alphabet`); nil when none was given.
    public var alphabet: String?

    public init(range: Range<Int>, phonemes: String, alphabet: String?) {
        self.range = range
        self.phonemes = phonemes
        self.alphabet = alphabet
    }
}

/// Everything a chapter says about pronouncing its words: its `ssml:ph` elements and the book's
/// PLS lexicons (the package's and those its documents link).
public struct ChapterPronunciation: Sendable, Equatable {
    public var phonemeRuns: [PhonemeRun]
    public var lexicons: [PronunciationLexicon]

    public init(phonemeRuns: [PhonemeRun] = [], lexicons: [PronunciationLexicon] = []) {
        self.phonemeRuns = phonemeRuns
        self.lexicons = lexicons
    }

    public var isEmpty: Bool { phonemeRuns.isEmpty && lexicons.isEmpty }
}
