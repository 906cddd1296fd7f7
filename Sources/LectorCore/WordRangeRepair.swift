/// espeak-ng now and then reports a word at the wrong place: in "From which" the second word
/// comes as offset 1 ("rom "), in "II." the title comes twice ("II", then "I."). A listener
/// following the highlight sees nonsense. This puts each reported word on a real word of the
/// text and drops reports that fall inside the word before: which word they meant cannot be
/// told ("which" or a repeat of "II"?), and moving them on would shift every later word.
/// A word may go unhighlighted; none is ever wrong.
///
/// ```swift
/// var repair = WordRangeRepair(text: "From which")
/// repair.repair(start: 0, length: 4)   // 0..<4  "From"
/// repair.repair(start: 1, length: 4)   // nil: inside "From"
/// ```
public struct WordRangeRepair: Sendable {
    private let scalars: [Unicode.Scalar]
    private var previousEnd = 0

    public init(text: String) {
        scalars = Array(text.unicodeScalars)
    }

    /// The corrected range (Unicode scalar offsets), or nil when no word is left to point at.
    public mutating func repair(start reportedStart: Int, length reportedLength: Int) -> Range<Int>? {
        var start = reportedStart
        guard start >= previousEnd, start < scalars.count else { return nil }
        if !isWordStart(start) {
            start = startOfWord(containing: start)
            guard start >= previousEnd else { return nil }
        }
        var end = endOfWord(from: start)
        if end == start { end = min(scalars.count, start + max(1, reportedLength)) }
        previousEnd = end
        return start..<end
    }

    private func isLetter(_ i: Int) -> Bool {
        let scalar = scalars[i]
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    private func isSpace(_ i: Int) -> Bool { scalars[i].properties.isWhitespace }

    private func isCJK(_ i: Int) -> Bool { TextSegmenter.isCJK(scalars[i]) }

    /// A letter after a non-letter (or any ideograph), or a symbol after a space.
    private func isWordStart(_ i: Int) -> Bool {
        guard i > 0 else { return !isSpace(i) }
        if isLetter(i) { return !isLetter(i - 1) || isCJK(i) || isCJK(i - 1) }
        return !isSpace(i) && isSpace(i - 1)
    }

    private func startOfWord(containing i: Int) -> Int {
        var index = i
        while index > 0, !isWordStart(index) { index -= 1 }
        return index
    }

    /// Letters, digits, and ' ’ - . , between them ("don't", "35.20"); one ideograph alone.
    private func endOfWord(from start: Int) -> Int {
        guard isLetter(start) else { return start }
        if isCJK(start) { return start + 1 }
        var index = start + 1
        while index < scalars.count {
            if isLetter(index), !isCJK(index) {
                index += 1
            } else if "'’-.,".unicodeScalars.contains(scalars[index]), index + 1 < scalars.count,
                      isLetter(index + 1), !isCJK(index + 1) {
                index += 2
            } else {
                break
            }
        }
        return index
    }
}
