/// A run of lines in a plain-text book between blank lines (a paragraph), or a single Markdown
/// heading line, or a chapter heading with its title lines.
///
///     CHAPTER I.
///     Down the Rabbit-Hole          → PlainTextBlock(lines: [("CHAPTER I.", 40), ("Down the Rabbit-Hole", 41)],
///                                                    kind: .chapterHeading(key: "chapter i"))
struct PlainTextBlock {
    enum Kind: Equatable {
        case paragraph
        /// `#` is level 1; the marks are already stripped from the line.
        case markdownHeading(level: Int)
        case chapterHeading(key: String)
    }

    var lines: [(text: String, number: Int)]
    var kind: Kind

    var isHeading: Bool { kind != .paragraph }

    /// The heading as a title: lines joined, with ": " where a line has no closing punctuation.
    ///
    ///     ["Chapter 1", "The Beginning"] → "Chapter 1: The Beginning"
    ///     ["CHAPTER I.", "Down the Rabbit-Hole"] → "CHAPTER I. Down the Rabbit-Hole"
    var title: String {
        var result = ""
        for line in lines.map({ $0.text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }) where !line.isEmpty {
            if result.isEmpty {
                result = line
            } else if let last = result.last, ".:;!?—–-".contains(last) {
                result += " " + line
            } else {
                result += ": " + line
            }
        }
        return result
    }
}
