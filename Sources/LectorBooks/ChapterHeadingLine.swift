/// Recognises the lines plain-text books use as chapter headings: `Chapter 1`, `CHAPTER I.`,
/// `Chapter One: The Beginning`, `PART II`, `Book 3 — Exile`, `Prologue`, `EPILOGUE`.
///
/// A match is *strong* when the number ends the line or is followed by punctuation
/// (`CHAPTER I. Down the Rabbit-Hole`), and *weak* when a title follows after a mere space
/// (`Chapter 1 The Boy Who Lived`): weak matches count only on a short line standing alone, so
/// a paragraph opening "Book 2 of the series was…" is not a heading.
///
///     ChapterHeadingLine("CHAPTER II.")?.key            // "chapter ii"
///     ChapterHeadingLine("Part of the reason was")      // nil
struct ChapterHeadingLine: Equatable {
    /// Keyword and number, lowercased: the same heading in a contents list and in the text share it.
    var key: String
    var isStrong: Bool

    static let keywords: Set<String> = ["chapter", "chap.", "part", "book"]
    static let standaloneKeywords: Set<String> = ["prologue", "epilogue"]
    static let numberWords: Set<String> = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty",
        "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "first", "second", "third",
        "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    ]
    static let trailingPunctuation: Set<Character> = [".", ":", "-", "—", "–", ","]

    /// Every keyword is ASCII: the first word, ASCII-lowercased, without trailing punctuation.
    static let firstWords: Set<[UInt8]> = Set((keywords.union(standaloneKeywords)).map { Array($0.utf8) })
        .union([Array("chap".utf8)])

    /// Cheap rejection of the lines that cannot be headings (nearly all of them), before the
    /// Character-level work below.
    static func mayBeHeading(_ line: Substring) -> Bool {
        var word: [UInt8] = []
        for byte in line.utf8 {
            if byte == 0x20 || byte == 0x09 { break }
            guard word.count < 10 else { return false }
            word.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
        }
        while let last = word.last, last == 0x2E || last == 0x3A || last == 0x2D || last == 0x2C { word.removeLast() }
        // "—" and "–" are multi-byte; strip their UTF-8 too.
        while word.count >= 3, word[word.count - 3] == 0xE2, word[word.count - 2] == 0x80,
              word[word.count - 1] == 0x94 || word[word.count - 1] == 0x93 { word.removeLast(3) }
        return firstWords.contains(word)
    }

    init?(_ line: Substring) {
        guard Self.mayBeHeading(line) else { return nil }
        let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let first = words.first, line.count <= 80 else { return nil }
        let keyword = first.lowercased()
        if Self.standaloneKeywords.contains(keyword.trimmingTrailing(Self.trailingPunctuation)) {
            key = keyword.trimmingTrailing(Self.trailingPunctuation)
            isStrong = words.count == 1 || Self.trailingPunctuation.contains(first.last!)
            return
        }
        guard Self.keywords.contains(keyword), words.count >= 2 else { return nil }
        let numberToken = words[1]
        let number = numberToken.lowercased().trimmingTrailing(Self.trailingPunctuation)
        guard Self.isNumber(number) else { return nil }
        key = keyword + " " + number
        let numberEndsInPunctuation = numberToken.last.map(Self.trailingPunctuation.contains) ?? false
        let rest = words.dropFirst(2)
        isStrong = rest.isEmpty || numberEndsInPunctuation
            || (rest.first?.first).map(Self.trailingPunctuation.contains) == true
    }

    private static func isNumber(_ token: String) -> Bool {
        guard !token.isEmpty else { return false }
        if token.allSatisfy(\.isASCII), token.allSatisfy(\.isNumber) { return true }
        if token.count <= 8, token.allSatisfy({ "ivxlcdm".contains($0) }) { return true }
        let parts = token.split(separator: "-").map(String.init)
        return !parts.isEmpty && parts.allSatisfy { numberWords.contains($0) }
    }
}

private extension String {
    func trimmingTrailing(_ characters: Set<Character>) -> String {
        var result = self
        while let last = result.last, characters.contains(last) { result.removeLast() }
        return result
    }
}
