/// A run of lines in a plain-text book between blank lines (a paragraph), or a single Markdown
/// heading line, or a chapter heading with its title lines.
///
///     CHAPTER I.
///     Down the Rabbit-Hole          → PlainTextBlock(lines: [("CHAPTER I.", 40, …), ("Down the Rabbit-Hole", 41, …)],
///                                                    kind: .chapterHeading(key: "chapter i"), …)
struct PlainTextBlock {
    /// One line, trimmed. While its paragraph is read its text shares the piece it was split
    /// from; the lines a block keeps are copied out, and a paragraph block's past the text's
    /// first keep none (`Paragraph.flush`). `range` says where the whole line stands in the text
    /// it was split from, which a Markdown heading's stripped `text` cannot.
    struct Line {
        var text: Substring
        /// 1-based, in the file.
        var number: Int
        /// UTF-8 offsets of the trimmed line in that text.
        var range: Range<Int>
    }

    /// Unicode scalars kept as text and the words they make, the way `SpeakableTextBuilder`
    /// writes them (invisible characters dropped, whitespace only between words).
    struct Tally {
        var text = 0
        var words = 0

        /// The block's speakable length: its text and one space or line break between words.
        var scalars: Int { text + max(0, words - 1) }

        mutating func count(_ line: Substring) {
            var inWord = false
            for scalar in line.unicodeScalars {
                switch SpeakableTextBuilder.kind(of: scalar) {
                case .invisible: continue
                case .space: inWord = false
                case .text:
                    if !inWord { words += 1 }
                    inWord = true
                    text += 1
                }
            }
        }

        static func + (lhs: Tally, rhs: Tally) -> Tally { Tally(text: lhs.text + rhs.text, words: lhs.words + rhs.words) }
    }

    enum Kind: Equatable {
        case paragraph
        /// `#` is level 1; the marks are already stripped from the line.
        case markdownHeading(level: Int)
        case chapterHeading(key: String)
    }

    /// A heading's lines, or a paragraph's first line only (its text only if it opens the text):
    /// the others are split again from `range` when the block is laid out, so a book's lines are
    /// never all held at once.
    var lines: [Line]
    var kind: Kind
    /// UTF-8 offsets in the text split, from the first line's start to the last line's end.
    var range: Range<Int>
    var tally: Tally
    /// Where the line piece it ends with was cut for length (`PlainTextLayout.lineCut`): past
    /// `range` by any blanks before the cut. A chapter laid out alone cuts there again rather
    /// than deciding anew, since whether a line is cut depends on bytes after the chapter.
    var cutAt: Int?

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
