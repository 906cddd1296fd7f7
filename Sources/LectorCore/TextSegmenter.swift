/// Cuts a chapter into pieces the synthesizer speaks one at a time, each ending at a sentence
/// or paragraph boundary, so narration can start at any word and stop cheaply.
///
/// Offsets are Unicode scalar offsets into the chapter text, like `SpeakingRange`'s.
///
/// ```swift
/// let segmenter = TextSegmenter("One. Two three. Four")
/// segmenter.segment(from: 0)     // 0..<5   "One. "
/// segmenter.segment(from: 5)     // 5..<16  "Two three. "
/// segmenter.wordStart(atOrBefore: 7)   // 5, the start of "Two"
/// ```
public struct TextSegmenter: Sendable {
    /// A segment never runs longer than this many scalars (a long sentence is cut at a space).
    public let maximumLength: Int
    /// The chapter's scalars, compact (`ScalarStore`): the chapter narrated is held this way.
    public let scalars: ScalarStore

    public init(_ text: String, maximumLength: Int = 600) {
        scalars = ScalarStore(text)
        self.maximumLength = maximumLength
    }

    public var count: Int { scalars.count }

    /// The piece starting at `start`: up to and including the first sentence end (and the space
    /// after it), a paragraph break, or `maximumLength`, whichever comes first.
    public func segment(from start: Int) -> Range<Int> {
        let start = max(0, min(start, count))
        let limit = min(count, start + maximumLength)
        var index = start
        while index < limit {
            let scalar = scalars[index]
            if let end = sentenceEnd(at: index) { return start..<end }
            if scalar == "\n", index + 1 < count, scalars[index + 1] == "\n" {
                var end = index + 1
                while end < count, scalars[end].properties.isWhitespace { end += 1 }
                return start..<end
            }
            index += 1
        }
        guard limit < count else { return start..<count }
        // Too long: cut after the last line break in the second half of the limit (verse and
        // code run on for many lines without a sentence end), else after the last space, else
        // hard at the limit.
        let half = start + maximumLength / 2
        if let lineBreak = scalars[half..<limit].lastIndex(of: "\n") {
            return start..<(lineBreak + 1)
        }
        if let space = scalars[start..<limit].lastIndex(where: { $0.properties.isWhitespace }), space > start {
            return start..<(space + 1)
        }
        return start..<limit
    }

    /// True when `range` (a segment) ends where the voice may fall: at a sentence end, a
    /// paragraph break or the end of the text; false when it was cut short (a long sentence), so
    /// its engine text should ask for a rising pitch (`EngineText.render(_:endsPhrase:)`).
    ///
    ///     let segmenter = TextSegmenter("One. Two three")
    ///     segmenter.isPhraseEnd(0..<5)    // true: "One. "
    ///     segmenter.isPhraseEnd(5..<9)    // false: "Two " stops mid-sentence
    public func isPhraseEnd(_ range: Range<Int>) -> Bool {
        let upper = min(max(range.upperBound, 0), count)
        if upper >= count { return true }
        var index = upper
        var newlines = 0
        while index > range.lowerBound, scalars[index - 1].properties.isWhitespace {
            if scalars[index - 1] == "\n" { newlines += 1 }
            index -= 1
        }
        if newlines >= 2 { return true }
        while index > range.lowerBound, Self.closers.contains(scalars[index - 1]) { index -= 1 }
        guard index > range.lowerBound else { return false }
        return sentenceEnd(at: index - 1) != nil
    }

    /// Where the piece ends if the scalar at `index` ends a sentence: after it, its closing
    /// quotes and brackets, and the space that follows. Nil for a full stop that is part of a
    /// word ("35.20", "example.org") or of an abbreviation (`isAbbreviation(before:)`).
    func sentenceEnd(at index: Int) -> Int? {
        let scalar = scalars[index]
        guard Self.sentenceEnds.contains(scalar) || Self.isCJKStop(scalar) else { return nil }
        var end = index + 1
        while end < count, Self.closers.contains(scalars[end]) { end += 1 }
        guard end >= count || scalars[end].properties.isWhitespace || Self.isCJKStop(scalar) else { return nil }
        if scalar == ".", end == index + 1, isAbbreviation(before: index) { return nil }
        while end < count, scalars[end].properties.isWhitespace { end += 1 }
        return end
    }

    /// True when the full stop at `period` most likely ends an abbreviation, not a sentence,
    /// judged by the word before it and the first letter after it: a human narrator reads on
    /// through "Mr. Smith", "J. R. R. Tolkien", "S.E. of the town", "p. 5", "5 p.m. on Sunday",
    /// where a cut would make the voice fall and pause as at a sentence's end.
    ///
    ///     TextSegmenter("Mr. Smith came.").segment(from: 0)   // 0..<15, one piece
    func isAbbreviation(before period: Int) -> Bool {
        var wordStart = period
        while wordStart > 0, !scalars[wordStart - 1].properties.isWhitespace,
              !Self.openers.contains(scalars[wordStart - 1]) { wordStart -= 1 }
        guard wordStart < period else { return false }
        var next = period + 1
        while next < count, scalars[next].properties.isWhitespace || Self.openers.contains(scalars[next]) {
            if scalars[next] == "\n", next + 1 < count, scalars[next + 1] == "\n" { return false }
            next += 1
        }
        guard next < count else { return false }
        let following = scalars[next].properties
        if following.isLowercase { return true }   // a sentence starts with a capital, not this
        let word = String(String.UnicodeScalarView(scalars[wordStart..<period]))
        if following.isUppercase {
            let letters = word.unicodeScalars
            return (letters.count == 1 && letters.first!.properties.isUppercase)   // an initial
                || Self.titles.contains(word.lowercased())
        }
        return following.numericType != nil && Self.beforeNumbers.contains(word.lowercased())
    }

    /// The text's sentences as narration reads them (its pieces, a long sentence's cuts joined
    /// again), each without the space after it: what the read-along page marks around the word.
    ///
    ///     TextSegmenter("Mr. Smith came. He sat.\n\nEnd").sentences()   // [0..<15, 16..<23, 25..<28]
    public func sentences() -> [Range<Int>] {
        var sentences: [Range<Int>] = []
        var start = 0, sentenceStart = 0
        while start < count {
            let piece = segment(from: start)
            start = piece.upperBound
            guard isPhraseEnd(piece) else { continue }
            var end = piece.upperBound
            while end > sentenceStart, scalars[end - 1].properties.isWhitespace { end -= 1 }
            if end > sentenceStart { sentences.append(sentenceStart..<end) }
            sentenceStart = start
        }
        return sentences
    }

    public func text(_ range: Range<Int>) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[range])
        return String(view)
    }

    /// The start of the word containing `offset` (or the next word if `offset` is on a space),
    /// where seeks land.
    public func wordStart(atOrBefore offset: Int) -> Int {
        var index = max(0, min(offset, count))
        guard index < count else { return count }
        if scalars[index].properties.isWhitespace {
            while index < count, scalars[index].properties.isWhitespace { index += 1 }
            return index
        }
        if Self.isCJK(scalars[index]) { return index }
        while index > 0 {
            let previous = scalars[index - 1]
            if previous.properties.isWhitespace || Self.isCJK(previous) { break }
            index -= 1
        }
        return index
    }

    /// The start of the piece (`segment(from:)`: a sentence, a paragraph, or a cut of a very
    /// long sentence) that contains `offset`: where rewinding on resume lands, so narration
    /// picks up at a sentence's start rather than mid-thought.
    ///
    /// ```swift
    /// TextSegmenter("One. Two three. Four").sentenceStart(containing: 9)   // 5, "Two three. "
    /// ```
    public func sentenceStart(containing offset: Int) -> Int {
        let offset = max(0, min(offset, count - 1))
        var start = 0
        while start < count {
            let piece = segment(from: start)
            if piece.upperBound > offset || piece.isEmpty { return start }
            start = piece.upperBound
        }
        return start
    }

    static let sentenceEnds: Set<Unicode.Scalar> = [".", "!", "?", "…", ";"]
    static let closers: Set<Unicode.Scalar> = ["\"", "'", ")", "]", "\u{201D}", "\u{2019}", "»"]
    static let openers: Set<Unicode.Scalar> = ["\"", "'", "(", "[", "\u{201C}", "\u{2018}", "«", "\u{201E}"]
    /// Written before a name: "Dr. Jones", "St. Paul", "Mme. Curie", "Hr. Müller".
    static let titles: Set<String> = [
        "mr", "mrs", "ms", "mx", "messrs", "dr", "prof", "st", "mt", "rev", "hon", "fr", "sr", "sra", "srta",
        "gen", "col", "capt", "lt", "sgt", "cmdr", "adm", "gov", "sen", "pres", "mme", "mlle", "hr", "frl",
        "e.g", "i.e", "cf", "vs", "viz", "z.b", "d.h", "u.a", "vgl", "bzw",
    ]
    /// Written before a number: "No. 5", "p. 12", "Fig. 3", "Nr. 7".
    static let beforeNumbers: Set<String> = [
        "no", "nos", "nr", "p", "pp", "fig", "figs", "vol", "vols", "ch", "chap", "sec", "art", "ca", "approx",
        "op", "s", "bd", "n", "vs", "cf",
    ]

    static func isCJKStop(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "。" || scalar == "！" || scalar == "？"
    }

    /// CJK text has no spaces: every ideograph is a word start.
    static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        (0x3400...0x9FFF).contains(scalar.value) || (0xF900...0xFAFF).contains(scalar.value)
            || (0x20000...0x2FFFF).contains(scalar.value) || (0x3040...0x30FF).contains(scalar.value)
    }
}
