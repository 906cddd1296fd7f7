/// A stretch of a chapter's text that the book marks as written in a language (`xml:lang` or
/// `lang` on an element), in Unicode-scalar offsets of the chapter text like `SpeakingRange`'s.
///
///     <p>He wrote <i xml:lang="la">carpe diem</i> on the wall.</p>
///     // LanguageRun(range: 9..<19, language: "la")
public struct LanguageRun: Sendable, Equatable {
    public var range: Range<Int>
    /// The tag as the book wrote it (`la`, `de-CH`, `grc`).
    public var language: String

    public init(range: Range<Int>, language: String) {
        self.range = range
        self.language = language
    }
}
