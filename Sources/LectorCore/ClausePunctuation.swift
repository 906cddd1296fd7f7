/// The punctuation espeak-ng ends a clause at, shared by everything that decides whether a piece
/// of text already ends one: the book text builder (is this block mid-clause?) and the narrator's
/// engine text (does this line break need a pause of its own?).
///
///     ClausePunctuation.endsClause(Array("breeding".unicodeScalars)[...])     // false
///     ClausePunctuation.endsClause(Array("rain.”".unicodeScalars)[...])       // true: the quote is skipped
public enum ClausePunctuation {
    /// `. ! ? : ; … ,` and their CJK, Arabic and Devanagari counterparts: espeak-ng pauses at each.
    public static let terminal: Set<Unicode.Scalar> = [
        ".", "!", "?", ":", ";", "…", ",", "。", "！", "？", "；", "：", "，", "、", "‼", "⁇", "⁈", "⁉", "؟", "।",
    ]
    /// Quotes and brackets that may follow the punctuation: `rain.”` ends a clause.
    public static let closingMarks: Set<Unicode.Scalar> = ["\"", "'", "”", "’", "»", "›", ")", "]", "}", "」", "』", "）"]

    /// True when `scalars`, read backwards past whitespace and closing marks, ends with terminal
    /// punctuation; false for empty text.
    public static func endsClause<C: BidirectionalCollection>(_ scalars: C) -> Bool where C.Element == Unicode.Scalar {
        var index = scalars.endIndex
        while index > scalars.startIndex {
            let previous = scalars.index(before: index)
            let scalar = scalars[previous]
            if scalar.properties.isWhitespace || closingMarks.contains(scalar) {
                index = previous
                continue
            }
            return terminal.contains(scalar)
        }
        return false
    }
}
