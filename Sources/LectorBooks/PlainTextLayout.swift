import Foundation
import LectorCore

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
/// 7. Size: a line runs at most `longestLine` bytes (a longer one is cut, at a sentence end where
///    there is one, `lineCut`), a paragraph ends at its first line end past `longestParagraph`
///    bytes, and a chapter past `longestChapter` bytes is read in parts of about `chapterPartBytes`
///    ("CHAPTER I. (part 2 of 3)"). A chapter is laid out whole when it is read, so this bounds
///    what reading one costs whatever the file: a 10-MB text with no line break is no 10-MB
///    chapter. Books written as prose never come near these.
///
/// The book title is the Markdown title heading, else the file name without its extension.
struct PlainTextLayout: Sendable {
    static let partWords = 5000
    static let splitAboveWords = 7500
    static let leadingChapterMinimumWords = 20
    /// About 11,000 words, an hour and a quarter read aloud.
    static let longestLine = 64 << 10
    static let longestParagraph = 64 << 10
    static let longestChapter = 512 << 10
    static let chapterPartBytes = 256 << 10

    /// One chapter: where its lines stand in the text, and what the rules over the whole text
    /// decided inside it, so that it can be laid out alone from its own lines (`document(of:…)`)
    /// and the whole book's text is never held at once.
    struct ChapterSpan: Sendable, Equatable {
        var title: String
        /// UTF-8 offsets in the decoded text, from its first line's start to its last line's end.
        var utf8Range: Range<Int>
        /// Its first line's number (1-based) in the file.
        var firstLine: Int
        /// Where its blocks laid out as headings start (UTF-8 offsets in the decoded text; a
        /// contents list's chapter lines, demoted over the whole text, are not headings). Offsets,
        /// not line numbers: the pieces of a line cut for length share its number.
        var headingStarts: Set<Int>
        /// Where lines inside it were cut for length (UTF-8 offsets in the decoded text): laid
        /// out alone it is cut there, as the whole text was.
        var lineCuts: [Int] = []
        /// Where its speakable text starts in the whole text's (`SourceSpan.documentOffset`).
        var documentOffset: Int
        /// Its speakable text's length in Unicode scalars.
        var scalarCount: Int
        /// `StableHash` of its bytes: a file edited since it was opened is refused rather than
        /// read with offsets that no longer match.
        var checksum: UInt64
    }

    var title: String
    var chapters: [ChapterSpan]

    /// Decides the chapters over the whole text (rules above) without building its speakable
    /// text: each block's length and words are counted the way `SpeakableTextBuilder` would
    /// write them.
    init(text: String, fallbackTitle: String) {
        var scanner = Scanner()
        scanner.add(Substring(text))
        self.init(blocks: scanner.finish(), fallbackTitle: fallbackTitle)
        for index in chapters.indices { chapters[index].checksum = Self.checksum(text.utf8, chapters[index].utf8Range) }
    }

    /// Decides the chapters from the blocks of the whole text (`Scanner`); each chapter's
    /// `checksum` is left for the caller, who has its bytes.
    init(blocks: consuming [PlainTextBlock], fallbackTitle: String) {
        Self.demoteContentsLists(&blocks)
        let titleIndex = Self.titleHeadingIndex(blocks)
        let chapterIndexes = Self.chapterHeadingIndexes(blocks, titleIndex: titleIndex)
        let tallies = blocks.map(\.tally)
        let title = titleIndex.map { blocks[$0].title } ?? fallbackTitle
        self.title = title

        var starts = Self.mergingHeadingOnly(chapterIndexes.map { ($0, blocks[$0].title) })
        if let first = starts.first {
            let leadingWords = tallies[0..<first.blockIndex].reduce(0) { $0 + $1.words }
            if leadingWords >= Self.leadingChapterMinimumWords {
                let leadingTitle = titleIndex.map { blocks[$0].title }
                    ?? blocks.first.map { Self.shortened(String($0.lines.first?.text ?? "")) } ?? title
                starts.insert((0, leadingTitle), at: 0)
            } else {
                starts[0].blockIndex = 0
            }
        } else {
            starts = Self.parts(tallies, bookTitle: title)
        }
        starts = Self.bounded(starts, blocks)

        // Where each block's text lands in the whole text: blocks with text, joined by a blank line.
        var offsets: [Int] = []
        offsets.reserveCapacity(blocks.count)
        var length = 0
        for tally in tallies {
            offsets.append(length == 0 ? 0 : length + 2)
            if tally.scalars > 0 { length += (length == 0 ? 0 : 2) + tally.scalars }
        }
        chapters = starts.enumerated().map { index, start in
            let end = index + 1 < starts.count ? starts[index + 1].blockIndex : blocks.count
            let range = blocks[start.blockIndex].range.lowerBound..<blocks[end - 1].range.upperBound
            let own = tallies[start.blockIndex..<end].filter { $0.scalars > 0 }
            let first = (start.blockIndex..<end).first { tallies[$0].scalars > 0 }
            return ChapterSpan(
                title: start.title, utf8Range: range, firstLine: blocks[start.blockIndex].lines[0].number,
                headingStarts: Set(blocks[start.blockIndex..<end].filter(\.isHeading).map(\.range.lowerBound)),
                lineCuts: blocks[start.blockIndex..<end].compactMap(\.cutAt).filter { $0 < range.upperBound },
                documentOffset: first.map { offsets[$0] } ?? 0,
                scalarCount: own.reduce(0) { $0 + $1.scalars } + 2 * max(0, own.count - 1),
                checksum: 0)
        }
    }

    private static func checksum(_ utf8: String.UTF8View, _ range: Range<Int>) -> UInt64 {
        let lower = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
        let upper = utf8.index(lower, offsetBy: range.count)
        return StableHash.value(utf8[lower..<upper])
    }

    /// One chapter's speakable text, from its own lines (`text`, the file's bytes in
    /// `chapter.utf8Range`), the same as it stands in the whole text's. `recordsMarkup` also
    /// records the read-along page's markup (`DocumentText.markup`): each paragraph a `<p>`,
    /// each heading an `<h2>`.
    static func document(of text: Substring, chapter: ChapterSpan, documentPath: String,
                         recordsMarkup: Bool = false) -> DocumentText {
        let base = chapter.utf8Range.lowerBound
        let blocks = Self.blocks(of: text, firstLine: chapter.firstLine, cuts: chapter.lineCuts.map { $0 - base })
        var builder = SpeakableTextBuilder()
        // At most a scalar a UTF-8 byte, and the separators between blocks.
        builder.reserveCapacity(text.utf8.count + 2 * blocks.count + 2)
        var recorder = recordsMarkup ? MarkupRecorder() : nil
        var headings: [DocumentHeading] = []
        for block in blocks {
            let isHeading = chapter.headingStarts.contains(chapter.utf8Range.lowerBound + block.range.lowerBound)
            builder.endBlock(.paragraph)
            let start = builder.nextTextOffset
            recorder?.open(OutputElement(tag: isHeading ? "h2" : "p"), at: start)
            let lines = block.kind == .paragraph ? Self.lines(of: block, in: text) : block.lines
            for (index, line) in lines.enumerated() {
                if isHeading, index > 0 { builder.endBlock(.line) }
                let run = builder.append(isHeading ? String(line.text) : line.text + "\n",
                                         origin: { .init(elementPath: nil, line: line.number) })
                if recorder != nil { recorder?.spoken(run, in: builder.scalars) }
            }
            if isHeading { headings.append(DocumentHeading(offset: start, end: builder.scalars.count, text: block.title)) }
            recorder?.close(at: builder.nextTextOffset)
        }
        builder.finish()
        recorder?.finish(at: builder.nextTextOffset)
        return DocumentText(path: documentPath, scalars: builder.takeText(), segments: builder.segments,
                            anchors: [:], headings: headings, title: nil, markup: recorder?.markup)
    }

    /// Calls `body` with each line of `text` from UTF-8 offset `lower` to `upper` (ends: LF,
    /// CRLF or CR), untrimmed, with its offset and number (the first is `number`).
    private static func forEachLine(in text: Substring, from lower: Int, to upper: Int, number: Int,
                                    _ body: (Substring, Int, Int) -> Void) {
        let start = text.utf8.index(text.utf8.startIndex, offsetBy: lower)
        let utf8 = Substring(text.utf8[start..<text.utf8.index(start, offsetBy: upper - lower)]).utf8
        var number = number, offset = lower
        let rest = lineEnds(in: utf8, searchingFrom: utf8.startIndex) { line, next in
            body(line, offset, number)
            number += 1
            offset = lower + utf8.distance(from: utf8.startIndex, to: next)
        }.rest
        body(Substring(utf8[rest...]), offset, number)
    }

    /// The line ends (LF, CRLF or CR) in `utf8` from `searchFrom` on, its lines starting at its
    /// start: `body` gets each ended line and where the next one starts. Returns where the
    /// unended rest starts, and whether `utf8` ends in a CR (whose LF may be still to come).
    private static func lineEnds(in utf8: Substring.UTF8View, searchingFrom searchFrom: Substring.UTF8View.Index,
                                 _ body: (Substring, Substring.UTF8View.Index) -> Void)
        -> (rest: Substring.UTF8View.Index, endsInCarriageReturn: Bool) {
        var index = searchFrom, lineStart = utf8.startIndex, endsInCarriageReturn = false
        while index < utf8.endIndex {
            let byte = utf8[index]
            guard byte == 10 || byte == 13 else {
                utf8.formIndex(after: &index)
                continue
            }
            let lineEnd = index
            utf8.formIndex(after: &index)
            if byte == 13 {
                if index == utf8.endIndex {
                    endsInCarriageReturn = true
                } else if utf8[index] == 10 {
                    utf8.formIndex(after: &index)
                }
            }
            body(Substring(utf8[lineStart..<lineEnd]), index)
            lineStart = index
        }
        return (lineStart, endsInCarriageReturn)
    }

    /// A paragraph's lines, split again from its range of `text`.
    private static func lines(of block: PlainTextBlock, in text: Substring) -> [PlainTextBlock.Line] {
        var lines: [PlainTextBlock.Line] = []
        forEachLine(in: text, from: block.range.lowerBound, to: block.range.upperBound, number: block.lines[0].number) { raw, _, number in
            lines.append(.init(text: trimmed(raw), number: number, range: 0..<0))
        }
        return lines
    }

    /// Splits `text` into blocks at blank lines and Markdown headings (`Scanner`), lines
    /// numbered from `firstLine`.
    private static func blocks(of text: Substring, firstLine: Int, cuts: [Int]) -> [PlainTextBlock] {
        var scanner = Scanner(firstLine: firstLine, cuts: cuts)
        scanner.add(text)
        return scanner.finish()
    }

    /// Splits a text into blocks at blank lines and Markdown headings, fed a piece at a time (a
    /// file read a MiB at a time, or a whole text at once), as the same text whole would split:
    /// lines end at LF, CRLF or CR, a CRLF cut between two pieces is one end, and offsets and
    /// line numbers run on across pieces. A paragraph keeps only its first three lines and what
    /// the rules ask of the others (`Paragraph`), and a paragraph opening with a chapter line
    /// becomes a heading block (with its short title lines), the text after it a paragraph of its
    /// own. What blocks keep of a line is copied out, so no piece outlives its paragraph: only
    /// the line being read is held.
    ///
    ///     var scanner = PlainTextLayout.Scanner()
    ///     scanner.add("CHAPTER I.\r")
    ///     scanner.add("\n\nIt was.")
    ///     scanner.finish()   // a heading (line 1), a paragraph (line 3, bytes 13..<20)
    struct Scanner {
        private var blocks: [PlainTextBlock] = []
        private var paragraph = Paragraph()
        /// The line not yet ended: the end of the last piece, then the new one appended.
        private var pending = ""
        /// Where `pending` starts in the whole text (UTF-8 offset), and its line's number.
        private var pendingOffset = 0
        private var number: Int
        /// The last piece ended in CR: an LF opening the next one belongs to it.
        private var afterCarriageReturn = false
        /// Where to cut lines (a chapter laid out alone: where the whole text was cut), nil to
        /// decide (`lineCut`).
        private let cuts: [Int]?
        private var nextCut = 0

        init(firstLine: Int = 1, cuts: [Int]? = nil) {
            number = firstLine
            self.cuts = cuts
        }

        mutating func add(_ piece: Substring) {
            var piece = piece
            if afterCarriageReturn, let first = piece.utf8.first {
                afterCarriageReturn = false
                if first == 10 {
                    piece = Substring(piece.utf8.dropFirst())
                    pendingOffset += 1
                }
            }
            if pending.isEmpty {
                let rest = split(piece)
                pending = String(rest)
            } else {
                // The unfinished line has no end in it: only the new bytes are looked at.
                let scanned = pending.utf8.count
                pending.append(contentsOf: piece)
                let text = Substring(pending)
                let rest = split(text, from: scanned)
                if rest.utf8.count < text.utf8.count { pending = String(rest) }
            }
            boundPending()
        }

        /// Hands on the unended line's pieces past `longestLine` as they are cut (`line` cuts the
        /// same line the same way when it comes whole) and drops the blanks it opens with, which
        /// are trimmed anyway: a file with no line ends is held a window at a time.
        private mutating func boundPending() {
            guard cuts == nil else { return }   // a chapter's own text, cut as it was
            var rest = Substring(pending)
            var offset = pendingOffset
            func dropBlanks() {
                let start = rest.unicodeScalars.firstIndex { !PlainTextLayout.isBlank($0) } ?? rest.endIndex
                offset += rest.utf8.distance(from: rest.startIndex, to: start)
                rest = rest[start...]
            }
            dropBlanks()
            while let cut = PlainTextLayout.lineCut(rest) {
                piece(rest[..<cut], offset: offset, isCut: true)
                offset += rest.utf8.distance(from: rest.startIndex, to: cut)
                rest = rest[cut...]
                dropBlanks()
            }
            guard offset != pendingOffset else { return }
            pending = String(rest)
            pendingOffset = offset
        }

        mutating func finish() -> [PlainTextBlock] {
            line(Substring(pending), offset: pendingOffset)
            pending = ""
            paragraph.flush(into: &blocks)
            return blocks
        }

        /// Hands each line ended in `text` to `line`, looking for ends from byte `from` on; returns
        /// what follows the last end (all of `text` if none), `pendingOffset` moved to it.
        private mutating func split(_ text: Substring, from: Int = 0) -> Substring {
            let utf8 = text.utf8
            let base = pendingOffset
            let (rest, endsInCarriageReturn) = PlainTextLayout.lineEnds(
                in: utf8, searchingFrom: utf8.index(utf8.startIndex, offsetBy: from)) { line, next in
                self.line(line, offset: pendingOffset)
                pendingOffset = base + utf8.distance(from: utf8.startIndex, to: next)
            }
            if endsInCarriageReturn { afterCarriageReturn = true }
            return Substring(utf8[rest...])
        }

        /// One line, ended or the text's last: cut into pieces of at most `longestLine` bytes
        /// (`lineCut`), which share its number.
        private mutating func line(_ raw: Substring, offset: Int) {
            defer { number += 1 }
            var raw = raw, offset = offset
            while let cut = nextCut(in: raw, at: offset) {
                piece(raw[..<cut], offset: offset, isCut: true)
                offset += raw.utf8.distance(from: raw.startIndex, to: cut)
                raw = raw[cut...]
            }
            piece(raw, offset: offset, isCut: false)
        }

        /// Where `raw` (at `offset`) is cut next: decided, or the next of `cuts` inside it.
        private mutating func nextCut(in raw: Substring, at offset: Int) -> Substring.Index? {
            guard let cuts else { return PlainTextLayout.lineCut(raw) }
            while nextCut < cuts.count, cuts[nextCut] <= offset { nextCut += 1 }
            guard nextCut < cuts.count, cuts[nextCut] < offset + raw.utf8.count else { return nil }
            defer { nextCut += 1 }
            return raw.utf8.index(raw.startIndex, offsetBy: cuts[nextCut] - offset)
        }

        /// A line, or a piece of one cut for length, which ends its paragraph; so does a line
        /// ending past `longestParagraph` bytes of it.
        private mutating func piece(_ raw: Substring, offset: Int, isCut: Bool) {
            let line = PlainTextLayout.trimmed(raw)
            guard !line.isEmpty else {
                paragraph.flush(into: &blocks)
                return
            }
            let lower = offset + raw.utf8.distance(from: raw.startIndex, to: line.startIndex)
            let entry = PlainTextBlock.Line(text: line, number: number, range: lower..<(lower + line.utf8.count))
            if let heading = PlainTextLayout.markdownHeading(line) {
                paragraph.flush(into: &blocks)
                var tally = PlainTextBlock.Tally()
                tally.count(heading.text)
                blocks.append(PlainTextBlock(lines: [.init(text: heading.text, number: number, range: entry.range)],
                                             kind: .markdownHeading(level: heading.level), range: entry.range, tally: tally))
            } else {
                paragraph.add(entry)
                if isCut || paragraph.bytes >= PlainTextLayout.longestParagraph { paragraph.flush(into: &blocks) }
            }
            if isCut { blocks[blocks.count - 1].cutAt = offset + raw.utf8.count }
        }
    }

    /// The lines of a paragraph as they come, keeping what deciding whether it opens with a
    /// chapter heading takes: its first three lines, how many lines read as chapter headings
    /// (two or more: a contents list), and the tallies of its first line and of the rest.
    private struct Paragraph {
        var head: [PlainTextBlock.Line] = []
        var count = 0
        var chapterLines = 0
        var firstMatch: ChapterHeadingLine?
        var end = 0
        var first = PlainTextBlock.Tally()
        var rest = PlainTextBlock.Tally()

        /// Its UTF-8 length so far, from its first line's start.
        var bytes: Int { head.first.map { end - $0.range.lowerBound } ?? 0 }

        mutating func add(_ line: PlainTextBlock.Line) {
            if head.count < 3 { head.append(line) }
            let match = ChapterHeadingLine(line.text)
            if match != nil { chapterLines += 1 }
            if count == 0 {
                firstMatch = match
                first.count(line.text)
            } else {
                rest.count(line.text)
            }
            count += 1
            end = line.range.upperBound
        }

        /// The lines a block keeps are copied out of the text they were split from, once it is
        /// decided which: a heading's lines whole; a paragraph's first line only when it opens
        /// the text, and only its start (it titles a leading chapter, 60 characters of it); the
        /// other paragraphs' first lines no text at all, only their number and range.
        mutating func flush(into blocks: inout [PlainTextBlock]) {
            defer { self = Paragraph() }
            guard count > 0 else { return }
            let owned = { (line: PlainTextBlock.Line) in
                PlainTextBlock.Line(text: Substring(String(line.text)), number: line.number, range: line.range)
            }
            let bare = { (line: PlainTextBlock.Line) in PlainTextBlock.Line(text: "", number: line.number, range: line.range) }
            var opening = bare(head[0])
            if blocks.isEmpty { opening.text = Substring(String(head[0].text.prefix(Self.openingKept))) }
            let whole = PlainTextBlock(lines: [opening], kind: .paragraph, range: head[0].range.lowerBound..<end, tally: first + rest)
            guard chapterLines < 2, let match = firstMatch else { return blocks.append(whole) }
            let characters = head.reduce(0) { $0 + $1.text.count }
            let endsLikeSentence = head[0].text.last.map { ".!?".contains($0) } ?? false
            if count <= 3, characters <= 120, match.isStrong || !endsLikeSentence {
                var heading = whole
                heading.lines = head.map(owned)
                heading.kind = .chapterHeading(key: match.key)
                return blocks.append(heading)
            }
            guard match.isStrong else { return blocks.append(whole) }
            blocks.append(PlainTextBlock(lines: [owned(head[0])], kind: .chapterHeading(key: match.key), range: head[0].range, tally: first))
            if count > 1 {
                blocks.append(PlainTextBlock(lines: [bare(head[1])], kind: .paragraph, range: head[1].range.lowerBound..<end, tally: rest))
            }
        }

        /// Characters of the text's opening line kept for a leading chapter's title (`shortened`
        /// takes 60 after collapsing runs of whitespace).
        static let openingKept = 1000
    }

    /// `trimmingCharacters(in: .whitespacesAndNewlines)` without the NSString round trip.
    static func trimmed(_ line: Substring) -> Substring {
        let scalars = line.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isBlank($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isBlank($0) })!
        return Substring(scalars[first...last])
    }

    /// What `trimmed` trims: white space and line ends.
    static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x80 ? (scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value)) : scalar.properties.isWhitespace
    }

    /// Where a line (no line end in it) longer than `longestLine` bytes, counted from its first
    /// non-blank, is cut, so that a file with no line breaks is no one paragraph: at the last
    /// sentence end in its first `longestLine` bytes, else at the last blank, else between two
    /// characters. Nil when it is short enough. What comes after the cut is judged the same
    /// way from its own first non-blank, so pieces of a text and the text whole cut alike.
    ///
    ///     lineCut(String(repeating: "Word. ", count: 20_000)[...])   // after the last "Word." that fits
    static func lineCut(_ line: Substring) -> Substring.Index? {
        let scalars = line.unicodeScalars, utf8 = line.utf8
        guard let start = scalars.firstIndex(where: { !isBlank($0) }),
              utf8.distance(from: start, to: utf8.endIndex) > longestLine else { return nil }
        var end = utf8.index(start, offsetBy: longestLine)
        while end > start, utf8[end] & 0xC0 == 0x80 { utf8.formIndex(before: &end) }
        var lastBlank: Substring.Index?
        var index = end
        while index > start {
            let after = index
            scalars.formIndex(before: &index)
            let scalar = scalars[index]
            if "。！？".unicodeScalars.contains(scalar) { return after }
            guard isBlank(scalar) else { continue }
            if lastBlank == nil { lastBlank = index }
            var before = index
            while before > start {
                scalars.formIndex(before: &before)
                let mark = scalars[before]
                if "\"')]»”’".unicodeScalars.contains(mark) { continue }
                if ".!?…".unicodeScalars.contains(mark) { return index }
                break
            }
        }
        if let lastBlank { return lastBlank }
        // No blank at all: between two characters, not before a mark that joins the one before.
        var cut = end
        while cut > start, Self.joinsPrevious(scalars[cut]) { scalars.formIndex(before: &cut) }
        return cut > start ? cut : end
    }

    private static func joinsPrevious(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return scalar.properties.isGraphemeExtend || scalar.value == 0x200D || scalar.properties.isVariationSelector
        }
    }

    /// `## Chapter 2 ##` → (2, "Chapter 2"); `#hashtag` is no heading.
    private static func markdownHeading(_ line: Substring) -> (level: Int, text: Substring)? {
        let hashes = line.prefix { $0 == "#" }.count
        guard (1...6).contains(hashes) else { return nil }
        let rest = line.dropFirst(hashes)
        guard let space = rest.first, space == " " || space == "\t" else { return nil }
        var text = rest.trimmingCharacters(in: .whitespaces)
        while text.hasSuffix("#") { text.removeLast() }
        text = text.trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : (hashes, Substring(text))
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

    /// Rule 6: block indexes where parts start, cut at the end of a paragraph with text.
    private static func parts(_ tallies: [PlainTextBlock.Tally], bookTitle: String)
        -> [(blockIndex: Int, title: String)] {
        guard tallies.contains(where: { $0.scalars > 0 }) else { return [] }
        let total = tallies.reduce(0) { $0 + $1.words }
        guard total > splitAboveWords else { return [(0, bookTitle)] }
        let withText = tallies.indices.filter { tallies[$0].scalars > 0 }
        var parts: [(blockIndex: Int, title: String)] = [(0, "Part 1")]
        var wordsInPart = 0, wordsSeen = 0
        for (position, index) in withText.enumerated() {
            wordsInPart += tallies[index].words
            wordsSeen += tallies[index].words
            if wordsInPart >= partWords, total - wordsSeen >= partWords / 2, position + 1 < withText.count {
                parts.append((withText[position + 1], "Part \(parts.count + 1)"))
                wordsInPart = 0
            }
        }
        return parts
    }

    /// Rule 7: chapters past `longestChapter` bytes cut into parts of at least
    /// `chapterPartBytes`, at block ends, the last at least half that.
    private static func bounded(_ starts: [(blockIndex: Int, title: String)], _ blocks: [PlainTextBlock])
        -> [(blockIndex: Int, title: String)] {
        var bounded: [(blockIndex: Int, title: String)] = []
        for (position, start) in starts.enumerated() {
            let end = position + 1 < starts.count ? starts[position + 1].blockIndex : blocks.count
            let upper = blocks[end - 1].range.upperBound
            guard upper - blocks[start.blockIndex].range.lowerBound > longestChapter else {
                bounded.append(start)
                continue
            }
            var cuts = [start.blockIndex]
            var partStart = blocks[start.blockIndex].range.lowerBound
            for index in (start.blockIndex + 1)..<end {
                let lower = blocks[index].range.lowerBound
                guard lower - partStart >= chapterPartBytes, upper - lower >= chapterPartBytes / 2 else { continue }
                cuts.append(index)
                partStart = lower
            }
            bounded += cuts.enumerated().map { part, blockIndex in
                (blockIndex, cuts.count > 1 ? "\(start.title) (part \(part + 1) of \(cuts.count))" : start.title)
            }
        }
        return bounded
    }

    private static func shortened(_ line: String) -> String {
        let collapsed = line.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard collapsed.count > 60 else { return collapsed }
        let cut = collapsed.prefix(60)
        return (cut.lastIndex(of: " ").map { String(cut[..<$0]) } ?? String(cut)) + "…"
    }
}
