import Foundation

/// Splits a plain-text book into chapters and turns it into speakable text.
///
/// Rules, in order:
/// 1. Blank lines separate paragraphs; hard-wrapped lines inside a paragraph are joined.
/// 2. Chapter headings are lines like `Chapter 1`, `CHAPTER I.`, `Chapter One: …`, `PART II`,
///    `Book 3`, `Prologue` (see `ChapterHeadingLine`), standing at the start of a paragraph; up
///    to two following short lines in the same paragraph are the heading's title
///    (`CHAPTER I.` / `Down the Rabbit-Hole` → "CHAPTER I. Down the Rabbit-Hole"). A paragraph
///    with several such lines, or heading-only paragraphs repeated later, are a contents list,
///    not headings.
/// 3. Markdown: `#`…`######` lines are headings. A single top-level heading that comes before
///    every other heading, with deeper headings or chapter lines after it, is the book's title
///    (`# The Book` then `## Chapter 1`, `## Chapter 2`); chapters split at the next level.
///    Otherwise chapters split at the top level present, and deeper headings are read as text.
/// 4. A heading directly followed by another chapter heading (`PART ONE` then `CHAPTER 1`) is
///    not a chapter of its own: it opens the next one, titles joined ("PART ONE — CHAPTER 1").
/// 5. Text before the first chapter heading is its own chapter when it has at least 20 words,
///    titled by the Markdown title or its first line; otherwise chapter 1 starts at the top.
/// 6. No headings: one chapter titled like the book, or, past `splitAboveWords` words, parts of
///    about `partWords` words cut at paragraph ends, titled "Part 1", "Part 2", … so a listener can
///    skip around with next/previous track.
///
/// The book title is the Markdown title heading, else the file name without its extension.
struct PlainTextLayout: Sendable {
    static let partWords = 5000
    static let splitAboveWords = 7500
    static let leadingChapterMinimumWords = 20

    var document: DocumentText
    var title: String
    var chapters: [(title: String, range: Range<Int>)]

    /// `recordsMarkup` also records the read-along page's markup (`DocumentText.markup`): each
    /// paragraph a `<p>`, each heading an `<h2>`.
    init(text: String, documentPath: String, fallbackTitle: String, recordsMarkup: Bool = false) {
        var blocks = Self.blocks(of: text)
        Self.demoteContentsLists(&blocks)
        let titleIndex = Self.titleHeadingIndex(blocks)
        let chapterIndexes = Self.chapterHeadingIndexes(blocks, titleIndex: titleIndex)

        var builder = SpeakableTextBuilder()
        var recorder = recordsMarkup ? MarkupRecorder() : nil
        var blockStarts: [Int] = []
        var headings: [DocumentHeading] = []
        for block in blocks {
            builder.endBlock(.paragraph)
            let start = builder.nextTextOffset
            blockStarts.append(start)
            recorder?.open(OutputElement(tag: block.isHeading ? "h2" : "p"), at: start)
            if block.isHeading {
                for (index, line) in block.lines.enumerated() {
                    if index > 0 { builder.endBlock(.line) }
                    let run = builder.append(line.text, origin: { .init(elementPath: nil, line: line.number) })
                    if recorder != nil { recorder?.spoken(run, in: builder.scalars) }
                }
                headings.append(DocumentHeading(offset: start, end: builder.scalars.count, text: block.title))
            } else {
                for line in block.lines {
                    let run = builder.append(line.text + "\n", origin: { .init(elementPath: nil, line: line.number) })
                    if recorder != nil { recorder?.spoken(run, in: builder.scalars) }
                }
            }
            recorder?.close(at: builder.nextTextOffset)
        }
        builder.finish()
        recorder?.finish(at: builder.nextTextOffset)
        let document = DocumentText(path: documentPath, scalars: builder.scalars, segments: builder.segments,
                                    anchors: [:], headings: headings, title: nil, markup: recorder?.markup)
        let title = titleIndex.map { blocks[$0].title } ?? fallbackTitle
        self.document = document
        self.title = title

        let starts = Self.mergingHeadingOnly(chapterIndexes.map { ($0, blocks[$0].title) })
            .map { (offset: blockStarts[$0.blockIndex], title: $0.title) }
        guard let first = starts.first else {
            chapters = Self.parts(of: document, bookTitle: title)
            return
        }
        var chapterStarts = starts
        let leading = 0..<first.offset
        if document.wordCount(in: leading) >= Self.leadingChapterMinimumWords {
            let leadingTitle = titleIndex.map { blocks[$0].title }
                ?? blocks.first.map { Self.shortened($0.lines.first?.text ?? "") } ?? title
            chapterStarts.insert((0, leadingTitle), at: 0)
        } else {
            chapterStarts[0].offset = 0
        }
        chapters = chapterStarts.enumerated().map { index, start in
            let end = index + 1 < chapterStarts.count ? chapterStarts[index + 1].offset : document.count
            return (start.title, start.offset..<end)
        }
    }

    private static func blocks(of text: String) -> [PlainTextBlock] {
        // Split on the UTF-8 bytes: splitting the Character view runs grapheme breaking over the
        // whole book, and Foundation's replacingOccurrences copies it twice even without a CR.
        let normalized = text.utf8.contains(13)
            ? text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n") : text
        let lines = normalized.utf8.split(separator: 10, omittingEmptySubsequences: false).map { Substring($0) }
        var blocks: [PlainTextBlock] = []
        var current: [(text: String, number: Int)] = []
        func flush() {
            if !current.isEmpty { blocks.append(PlainTextBlock(lines: current, kind: .paragraph)) }
            current = []
        }
        for (index, raw) in lines.enumerated() {
            let line = Self.trimmed(raw)
            if line.isEmpty {
                flush()
            } else if let heading = markdownHeading(line) {
                flush()
                blocks.append(PlainTextBlock(lines: [(heading.text, index + 1)], kind: .markdownHeading(level: heading.level)))
            } else {
                current.append((line, index + 1))
            }
        }
        flush()
        return blocks.flatMap(splitChapterHeading)
    }

    /// `trimmingCharacters(in: .whitespacesAndNewlines)` without the NSString round trip.
    static func trimmed(_ line: Substring) -> String {
        let scalars = line.unicodeScalars
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value < 0x80 ? (scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value)) : scalar.properties.isWhitespace
        }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isSpace($0) })!
        return String(scalars[first...last])
    }

    /// `## Chapter 2 ##` → (2, "Chapter 2"); `#hashtag` is no heading.
    private static func markdownHeading(_ line: String) -> (level: Int, text: String)? {
        let hashes = line.prefix { $0 == "#" }.count
        guard (1...6).contains(hashes) else { return nil }
        let rest = line.dropFirst(hashes)
        guard let space = rest.first, space == " " || space == "\t" else { return nil }
        var text = rest.trimmingCharacters(in: .whitespaces)
        while text.hasSuffix("#") { text.removeLast() }
        text = text.trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : (hashes, text)
    }

    /// A paragraph opening with a chapter line becomes a heading block (with its short title
    /// lines), and the text after it, if any, a paragraph of its own.
    private static func splitChapterHeading(_ block: PlainTextBlock) -> [PlainTextBlock] {
        guard block.kind == .paragraph else { return [block] }
        let matches = block.lines.map { ChapterHeadingLine($0.text) }
        guard matches.compactMap({ $0 }).count < 2, let match = matches[0] else { return [block] }
        let characters = block.lines.reduce(0) { $0 + $1.text.count }
        let endsLikeSentence = block.lines[0].text.last.map { ".!?".contains($0) } ?? false
        if block.lines.count <= 3, characters <= 120, match.isStrong || !endsLikeSentence {
            return [PlainTextBlock(lines: block.lines, kind: .chapterHeading(key: match.key))]
        }
        guard match.isStrong else { return [block] }
        return [PlainTextBlock(lines: [block.lines[0]], kind: .chapterHeading(key: match.key)),
                PlainTextBlock(lines: Array(block.lines.dropFirst()), kind: .paragraph)]
    }

    /// Heading-only chapter lines whose key comes again later are a table of contents.
    private static func demoteContentsLists(_ blocks: inout [PlainTextBlock]) {
        let wasHeading = blocks.map(\.isHeading)
        var laterKeys: Set<String> = []
        for index in blocks.indices.reversed() {
            guard case .chapterHeading(let key) = blocks[index].kind else { continue }
            let headingOnly = index + 1 >= blocks.count || wasHeading[index + 1]
            if headingOnly, laterKeys.contains(key) {
                blocks[index].kind = .paragraph
            }
            laterKeys.insert(key)
        }
    }

    private static func titleHeadingIndex(_ blocks: [PlainTextBlock]) -> Int? {
        let markdown = blocks.indices.compactMap { index -> (index: Int, level: Int)? in
            if case .markdownHeading(let level) = blocks[index].kind { return (index, level) }
            return nil
        }
        guard let topLevel = markdown.map(\.level).min() else { return nil }
        let top = markdown.filter { $0.level == topLevel }
        let hasDeeper = markdown.contains { $0.level > topLevel }
        let hasChapterLines = blocks.contains { if case .chapterHeading = $0.kind { return true }; return false }
        guard top.count == 1, top[0].index == blocks.firstIndex(where: \.isHeading),
              hasDeeper || hasChapterLines else { return nil }
        return top[0].index
    }

    private static func chapterHeadingIndexes(_ blocks: [PlainTextBlock], titleIndex: Int?) -> [Int] {
        let levels = blocks.indices.compactMap { index -> Int? in
            guard index != titleIndex, case .markdownHeading(let level) = blocks[index].kind else { return nil }
            return level
        }
        let splitLevel = levels.min()
        return blocks.indices.filter { index in
            switch blocks[index].kind {
            case .chapterHeading: return true
            case .markdownHeading(let level): return index != titleIndex && level == splitLevel
            case .paragraph: return false
            }
        }
    }

    /// Rule 4: a heading straight before the next chapter heading opens that chapter.
    private static func mergingHeadingOnly(_ starts: [(blockIndex: Int, title: String)])
        -> [(blockIndex: Int, title: String)] {
        var merged: [(blockIndex: Int, title: String)] = []
        var opening: (blockIndex: Int, title: String)?
        for (index, start) in starts.enumerated() {
            let headingOnly = index + 1 < starts.count && starts[index + 1].blockIndex == start.blockIndex + 1
            let combined = opening.map { ($0.blockIndex, $0.title + " — " + start.title) } ?? start
            if headingOnly {
                opening = combined
            } else {
                merged.append(combined)
                opening = nil
            }
        }
        return merged
    }

    /// Rule 6.
    private static func parts(of document: DocumentText, bookTitle: String) -> [(title: String, range: Range<Int>)] {
        guard !document.isEmpty else { return [] }
        let total = document.wordCount(in: 0..<document.count)
        guard total > splitAboveWords else { return [(bookTitle, 0..<document.count)] }
        var parts: [(title: String, range: Range<Int>)] = []
        var partStart = 0, wordsInPart = 0, wordsSeen = 0
        for (index, segment) in document.segments.enumerated() {
            let words = document.wordCount(in: segment.range)
            wordsInPart += words
            wordsSeen += words
            if wordsInPart >= partWords, total - wordsSeen >= partWords / 2, index + 1 < document.segments.count {
                let next = document.segments[index + 1].range.lowerBound
                parts.append(("Part \(parts.count + 1)", partStart..<next))
                partStart = next
                wordsInPart = 0
            }
        }
        parts.append(("Part \(parts.count + 1)", partStart..<document.count))
        return parts
    }

    private static func shortened(_ line: String) -> String {
        let collapsed = line.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard collapsed.count > 60 else { return collapsed }
        let cut = collapsed.prefix(60)
        return (cut.lastIndex(of: " ").map { String(cut[..<$0]) } ?? String(cut)) + "…"
    }
}
