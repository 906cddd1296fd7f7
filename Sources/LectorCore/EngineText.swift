/// The text espeak-ng is given for one segment of a chapter: the chapter's own scalars, with the
/// pauses a listener expects made audible without inventing sentence ends, one scalar for one so
/// that the engine's word positions are still chapter offsets.
///
/// What espeak-ng 1.51 does at a boundary (measured on "… month, breeding | Lilacs …", en voice:
/// pause after "breeding", and the pitch of its last syllable):
///
///     "breeding Lilacs", "breeding\nLilacs"   no pause, no clause end: a verse line runs on unheard
///     "breeding, Lilacs" or "breeding，Lilacs"  140 ms, pitch level/rising (91 → 98 Hz): goes on
///     "breeding; Lilacs" or "breeding；Lilacs"  210 ms, pitch level/rising: goes on
///     "breeding. Lilacs"                      290 ms, pitch falls (→ 79 Hz): a sentence ends
///     "breeding\n\nLilacs"                    520 ms, pitch falls: a paragraph ends
///     end of the text                         281 ms of silence, pitch falls
///     "… to me，" at the end of the text      120 ms, pitch rising
///
/// So a line break that follows words without punctuation (a verse line, a table cell, a list
/// item, a code line: `SpeakableTextBuilder` joins such blocks with a single newline) becomes
/// U+FF1B FULLWIDTH SEMICOLON, which espeak-ng ends a clause at without a following space
/// (`CLAUSE_SEMICOLON | CLAUSE_OPTIONAL_SPACE_AFTER` in its readclause.c, for every language):
/// the line gets its pause and keeps a rising pitch. A blank line needs nothing: espeak-ng ends a
/// paragraph there. A segment cut short of a sentence end (a very long sentence, a change of
/// language) ends with U+FF0C FULLWIDTH COMMA instead of the falling pitch the end of a text gets.
///
///     EngineText.render(Array("Dull roots\nWith spring rain.\n\n".unicodeScalars)[...], endsPhrase: true)
///     // "Dull roots；With spring rain.\n\n"
///     EngineText.render(Array("He said ".unicodeScalars)[...], endsPhrase: false)
///     // "He said，"
public enum EngineText {
    /// Replaces a line break that needs a pause: a clause end with a rising pitch, 210 ms.
    public static let linePause: Unicode.Scalar = "\u{FF1B}"
    /// Ends a segment that stops mid-sentence: a clause end with a rising pitch, 120 ms.
    public static let continuation: Unicode.Scalar = "\u{FF0C}"

    /// `scalars` as espeak-ng should read them; `endsPhrase` is false when the segment stops
    /// short of a sentence or paragraph end. Every scalar keeps its offset; at most one
    /// continuation mark is added after the last.
    public static func render(_ scalars: ArraySlice<Unicode.Scalar>, endsPhrase: Bool) -> String {
        var result = Array(scalars)
        for index in result.indices where result[index] == "\n" {
            let joinsLines = (index == 0 || result[index - 1] != "\n")
                && (index + 1 == result.count || result[index + 1] != "\n")
            guard joinsLines, index > 0, index + 1 < result.count else { continue }
            if !ClausePunctuation.endsClause(result[..<index]) { result[index] = linePause }
        }
        if !endsPhrase, !result.isEmpty, !ClausePunctuation.endsClause(result) {
            if let last = result.last, last.properties.isWhitespace {
                result[result.count - 1] = continuation
            } else {
                result.append(continuation)
            }
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: result)
        return String(view)
    }
}
