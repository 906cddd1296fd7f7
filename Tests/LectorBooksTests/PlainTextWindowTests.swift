import Foundation
@testable import LectorBooks
import LectorCore
import XCTest

/// A plain-text book is never held whole: UTF-8 is read into its text 1 MiB at a time
/// (`PlainTextDecoder.scanUTF8`) and laid out as it comes (`PlainTextLayout.Scanner`), the
/// chapters are decided without building the whole speakable text (`PlainTextLayout`), and each chapter is read back from the file by its bytes when it is
/// asked for. These pin what that must not change: scalars cut by a read, encodings found past
/// the first MiB, every chapter's length known on open, and an edited file refused.
final class PlainTextWindowTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    /// ASCII filler of `count` bytes in lines of 60 with blank lines between paragraphs.
    private func filler(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var line = 0
        while bytes.count < count {
            bytes.append(contentsOf: Array("word ".utf8))
            line += 5
            if line >= 60 { bytes.append(10); line = 0; if bytes.count % 7 == 0 { bytes.append(10) } }
        }
        return Array(bytes.prefix(count))
    }

    func testScalarsCutByAReadAreWholeAndTheIdentityIsTheFilesHash() throws {
        let chunk = 1 << 20
        // Each scalar starts `back` bytes before the first read's end: cut unless it fits.
        for (scalar, back) in [("—", 1), ("—", 2), ("😀", 1), ("😀", 2), ("😀", 3), ("é", 1), ("é", 2)] {
            let data = Data(filler(chunk - back) + Array("\(scalar) tail\n\n".utf8) + filler(5000))
            let url = try directory.file("cut-\(back)-\(scalar.utf8.count).txt", data)
            // Read straight, not through the whole-file fallback that invalid UTF-8 takes.
            var pieces: [Substring] = []
            let read = try XCTUnwrap(try PlainTextDecoder.scanUTF8(url) { pieces.append($0) }, "\(scalar) cut \(back) bytes before the end")
            XCTAssertEqual(pieces.joined(), String(decoding: data, as: UTF8.self))
            XCTAssertEqual(read.encoding, .utf8)
            let outline = try BookReader.open(url)
            XCTAssertEqual(outline.identity, ContentHash.identity(hex: ContentHash.fnv1a64(of: data)))
            let text = try (0..<outline.chapters.count).map { try outline.loadChapter($0).text }.joined()
            XCTAssertTrue(text.contains("\(scalar) tail"), "\(scalar) cut \(back) bytes before the read's end")
        }
    }

    func testAnEncodingGivenAwayPastTheFirstMiBIsStillFound() throws {
        let ascii = filler(3 << 19)
        let latinBytes = Data(ascii + [0x93] + Array("quoted".utf8) + [0x94, 10])
        let latin = try directory.file("latin.txt", latinBytes)
        XCTAssertNil(try PlainTextDecoder.scanUTF8(latin) { _ in })
        let outline = try BookReader.open(latin)
        XCTAssertEqual(outline.textEncoding, .windows1252)
        let text = try (0..<outline.chapters.count).map { try outline.loadChapter($0).text }.joined()
        XCTAssertTrue(text.contains("\u{201C}quoted\u{201D}"))

        let binary = try directory.file("binary.txt", Data(ascii + [0, 1, 2, 10]))
        XCTAssertThrowsError(try BookReader.open(binary)) { error in
            XCTAssertEqual(error as? BookError, .unsupportedEncoding(file: binary.standardizedFileURL,
                                                                     detected: "binary data (it contains NUL bytes)"))
        }
        let marked = try directory.file("marked.txt", Data([0xEF, 0xBB, 0xBF] + ascii))
        XCTAssertEqual(try BookReader.open(marked).textEncoding, .utf8WithByteOrderMark)
    }

    /// Every chapter's length is known on open, and is the length of the text read later: soft
    /// hyphens, runs of spaces and tabs, CRLF, a chapter of only invisible characters.
    func testEveryChaptersLengthIsKnownOnOpenAndMatchesItsText() throws {
        let text = "Pre\u{00AD}face  words\ttabbed,\r\nand  more.\r\n\r\nChapter 1\r\nThe Start\r\n\r\n"
            + "It\u{200B}was   a night.\n\n\n  Indented line.\n\nChapter 2\n\n\u{00AD}\u{200B}\n\nChapter 3\nEnd\n\nLast words."
        let outline = try BookReader.open(try directory.file("lengths.txt", text))
        XCTAssertGreaterThanOrEqual(outline.chapters.count, 3)
        for entry in outline.chapters {
            let chapter = try outline.loadChapter(entry.index)
            if let known = entry.scalarCount {
                XCTAssertEqual(known, chapter.text.unicodeScalars.count, "chapter \(entry.index): \(chapter.text.debugDescription)")
            } else {
                XCTAssertEqual(chapter.text, entry.title, "only a chapter with no text of its own has no length on open")
            }
        }
    }

    func testAChapterOfAFileEditedSinceOpeningIsRefusedAndTheOthersStillRead() throws {
        let original = "Chapter 1\n\nOne two three.\n\nChapter 2\n\nFour five six.\n"
        let url = try directory.file("story.txt", original)
        let outline = try BookReader.open(url)
        try Data(original.replacingOccurrences(of: "Four", with: "Nine").utf8).write(to: url)
        XCTAssertEqual(try outline.loadChapter(0).text, "Chapter 1\n\nOne two three.")
        XCTAssertThrowsError(try outline.loadChapter(1)) { error in
            XCTAssertTrue("\(error)".contains("changed since it was opened"), "\(error)")
        }
        try FileManager.default.removeItem(at: url)
        XCTAssertThrowsError(try outline.loadChapter(0)) { error in
            guard case .unreadable = error as? BookError else { return XCTFail("\(error)") }
        }
    }
    /// The text laid out from pieces of `size` scalars, as a file's reads would feed it.
    private static func layout(_ scalars: [Unicode.Scalar], inPiecesOf size: Int) -> PlainTextLayout {
        var scanner = PlainTextLayout.Scanner()
        var start = 0
        while start < scalars.count {
            var piece = String.UnicodeScalarView()
            piece.append(contentsOf: scalars[start..<min(start + size, scalars.count)])
            scanner.add(Substring(String(piece)))
            start += size
        }
        return PlainTextLayout(blocks: scanner.finish(), fallbackTitle: "fallback")
    }

    /// The scanner lays a text out the same whether it comes whole or in pieces cut anywhere
    /// (inside a CRLF, a line, a heading's title lines, a multi-byte scalar's neighbours).
    func testATextLaidOutPieceByPieceIsLaidOutAsTheWholeText() throws {
        let texts = [
            "Pre\u{00AD}face  words\ttabbed,\r\nand  more.\r\n\r\nChapter 1\r\nThe Start\r\n\r\nIt was.\r\n",
            "CR only\rline two\r\rCHAPTER I.\rDown the Rabbit-Hole\r\rAlice — “was” beginning 😀.\r",
            "# The Book\n\nIntro words that run on for long enough to count as a chapter of their own here.\n\n"
                + "## Chapter 1\n\nText.\n\n## Chapter 2 ##\n\nMore text.\n\n### deeper\n\nEnd.",
            "Contents\n\nChapter 1\nChapter 2\n\nChapter 1\n\nOne.\n\nPART ONE\n\nChapter 2\n\nTwo.\n\n\n",
            "No headings at all.\nJust lines\n\nand paragraphs, no final newline",
            "\n\n\r\n   \n",
            "",
        ] + [String(repeating: "word ", count: 9000) + "\n\n" + String(repeating: "Another line of words.\n", count: 400)]
        for text in texts {
            let whole = PlainTextLayout(text: text, fallbackTitle: "fallback")
            let scalars = Array(text.unicodeScalars)
            for size in [1, 2, 3, 5, 7, 64, 4096] {
                let pieces = Self.layout(scalars, inPiecesOf: size)
                XCTAssertEqual(pieces.title, whole.title, "\(text.prefix(40).debugDescription) in pieces of \(size)")
                XCTAssertEqual(pieces.chapters, whole.chapters.map { var chapter = $0; chapter.checksum = 0; return chapter },
                               "\(text.prefix(40).debugDescription) in pieces of \(size)")
            }
        }
    }

    /// Texts past the size rules (a line with no end, one with no blank, marks that must stay
    /// with their letter, sentences with no space after them, a paragraph of many lines, blanks
    /// before a long line) cut the same whether they come whole or in pieces.
    func testLongLinesAndParagraphsAreCutAlikeWholeAndInPieces() throws {
        let texts = [
            String(repeating: "It rained. ", count: 20_000),
            String(repeating: "word ", count: 40_000) + "\n\nNext.",
            String(repeating: "e\u{301}", count: 50_000),
            String(repeating: "雨が降った。", count: 8_000),
            String(repeating: "A line of verse\n", count: 9_000),
            String(repeating: " ", count: 100_000) + String(repeating: "“Go!” he said. ", count: 8_000),
            "# " + String(repeating: "Heading words ", count: 6_000) + "\n\n## Chapter 1\n\nText.",
        ]
        for text in texts {
            let whole = PlainTextLayout(text: text, fallbackTitle: "fallback")
            let scalars = Array(text.unicodeScalars)
            for size in [1, 7, 4096, 65_537, 1 << 20] where size == 1 ? scalars.count < 150_000 : true {
                let pieces = Self.layout(scalars, inPiecesOf: size)
                XCTAssertEqual(pieces.chapters, whole.chapters.map { var chapter = $0; chapter.checksum = 0; return chapter },
                               "\(text.prefix(20).debugDescription) in pieces of \(size)")
            }
        }
    }

    /// A 1.5-MB text with no line break, and a chapter of 1.2 MB under one heading: no chapter is
    /// laid out from more than `longestChapter` bytes, lines are cut at sentence ends, every word
    /// is read once and whole, and each chapter's text is as long as the outline said.
    func testNoChapterGrowsWithTheFile() throws {
        let sentence = "The clocks were striking thirteen. "
        let line = String(repeating: sentence, count: 45_000)
        var novel = "CHAPTER 1\n\n"
        while novel.utf8.count < 1_200_000 { novel += String(repeating: "It was a bright cold day in April. ", count: 40) + "\n\n" }
        novel += "CHAPTER 2\n\nThe end.\n"
        for (name, text) in [("one-line.txt", line), ("one-chapter.txt", novel)] {
            let outline = try BookReader.open(try directory.file(name, text))
            let source = try XCTUnwrap(outline.source as? PlainTextChapterSource)
            XCTAssertGreaterThan(source.chapters.count, 2, name)
            var words: [Substring] = []
            for (entry, span) in zip(outline.chapters, source.chapters) {
                XCTAssertLessThanOrEqual(span.utf8Range.count, PlainTextLayout.longestChapter, "\(name): \(entry.title)")
                let chapter = try outline.loadChapter(entry.index)
                XCTAssertEqual(chapter.text.unicodeScalars.count, entry.scalarCount, "\(name): \(entry.title)")
                words += chapter.text.split(whereSeparator: \.isWhitespace)
                if name == "one-line.txt" {
                    XCTAssertTrue(chapter.text.hasSuffix("thirteen."), "\(entry.title) ends at a sentence end")
                    XCTAssertTrue(chapter.text.split(separator: "\n\n").allSatisfy { $0.hasSuffix("thirteen.") },
                                  "\(entry.title): every cut at a sentence end")
                }
            }
            let expected = text.split(whereSeparator: \.isWhitespace)
            XCTAssertEqual(words.count, expected.count, name)
            XCTAssertTrue(words == expected, "\(name): every word once and whole")
        }
        let parts = try BookReader.open(try directory.file("one-chapter.txt", novel)).chapters.map(\.title)
        XCTAssertEqual(parts.first, "CHAPTER 1 (part 1 of \(parts.count - 1))")
        XCTAssertEqual(parts.last, "CHAPTER 2")
        let first = try BookReader.open(try directory.file("one-chapter.txt", novel)).loadChapter(1).text
        XCTAssertFalse(first.hasPrefix("CHAPTER"), "a part after the first has no heading of its own")
    }

    /// A chapter laid out alone is cut where the whole text was, though whether a line is cut
    /// depends on bytes past the chapter: blanks after its last line, the rest of a line a part
    /// ends inside. Its length, headings and text are the whole text's.
    func testAChapterLaidOutAloneIsCutWhereTheWholeTextWas() throws {
        // The chapter's last line is within the limit only without its trailing blanks.
        var content = "Aaa."
        while content.utf8.count < 65_530 { content += " word" }
        let trailing = "Chapter 1\n\n" + String(content.utf8.prefix(65_530))! + String(repeating: " ", count: 10)
            + "\n\nChapter 2\n\nThe end.\n"
        // A part (rule 6) ends after a line's second piece, cut at a blank 30 kB into it.
        let parts = "A. " + String(repeating: "word ", count: 6000) + String(repeating: "x", count: 70_000) + "\n\n"
            + String(repeating: "more words here and there\n", count: 2000)
        for (name, text) in [("trailing", trailing), ("parts", parts)] {
            let whole = PlainTextLayout(text: text, fallbackTitle: name)
            XCTAssertTrue(whole.chapters.contains { !$0.lineCuts.isEmpty }, "\(name): the test cuts no line")
            let utf8 = text.utf8
            for chapter in whole.chapters {
                let lower = utf8.index(utf8.startIndex, offsetBy: chapter.utf8Range.lowerBound)
                let alone = PlainTextLayout.document(of: Substring(utf8[lower..<utf8.index(lower, offsetBy: chapter.utf8Range.count)]),
                                                     chapter: chapter, documentPath: name)
                XCTAssertEqual(alone.scalars.count, chapter.scalarCount, "\(name): \(chapter.title)")
                XCTAssertEqual(alone.headings.count, chapter.headingStarts.count, "\(name): \(chapter.title)")
            }
            let outline = try BookReader.open(try directory.file("\(name).txt", text))
            var read = ""
            for entry in outline.chapters {
                let chapter = try outline.loadChapter(entry.index)
                XCTAssertEqual(chapter.text.unicodeScalars.count, entry.scalarCount, "\(name): \(entry.title)")
                read += chapter.text.filter { !$0.isWhitespace }
            }
            // The 70,000 x's are a word longer than a line: cut, but nothing lost or read twice.
            XCTAssertTrue(read == text.filter { !$0.isWhitespace }, "\(name): every letter once")
        }
    }

    /// A Markdown heading cut for length: its second piece shares its line number but is a
    /// paragraph, on the page too.
    func testAHeadingCutForLengthLeavesItsRestAParagraph() throws {
        let text = "# " + String(repeating: "Heading words ", count: 6_000) + "\n\nText."
        let outline = try BookReader.open(try directory.file("heading.txt", text))
        for entry in outline.chapters {
            XCTAssertEqual(try outline.loadChapter(entry.index).text.unicodeScalars.count, entry.scalarCount)
        }
        let markup = try outline.source.chapterMarkup(at: 0, title: outline.chapters[0].title)
        let html = markup.html
        XCTAssertEqual(html.components(separatedBy: "<h2").count - 1, 1, html.prefix(200).description)
    }

    /// Offsets and line numbers as the text has them, whatever the pieces (an empty one too):
    /// fixed figures, not the whole text's layout, which goes through the same scanner.
    func testTheScannersOffsetsAndLineNumbersAreTheTexts() {
        for pieces in [["CHAPTER I.\r", "", "\n\nIt was.\r\n  Then.  \n"], ["CHAPTER I.\r\n\nIt was.\r\n  Then.  \n"],
                       ["CHAP", "TER I.", "\r", "\n", "\n", "It", " was.\r", "\n  Then.  ", "\n"]] {
            var scanner = PlainTextLayout.Scanner()
            for piece in pieces { scanner.add(Substring(piece)) }
            let blocks = scanner.finish()
            XCTAssertEqual(blocks.map(\.kind), [.chapterHeading(key: "chapter i"), .paragraph], "\(pieces)")
            XCTAssertEqual(blocks.map(\.range), [0..<10, 13..<29], "\(pieces)")
            XCTAssertEqual(blocks.map { $0.lines.map(\.number) }, [[1], [3]], "\(pieces)")
            XCTAssertEqual(blocks.first?.lines.first?.text, "CHAPTER I.")
            XCTAssertEqual(blocks.map(\.tally.words), [2, 3], "\(pieces)")
        }
    }

    /// A file past the limit when read (it grew after its size was looked up) is refused.
    func testAFileReadPastTheLimitIsRefused() throws {
        let url = try directory.file("grown.txt", Data(filler(3 << 19)))
        XCTAssertThrowsError(try PlainTextDecoder.scanUTF8(url, limit: 1 << 20) { _ in }) { error in
            guard case .tooLarge = error as? BookError else { return XCTFail("\(error)") }
        }
    }

    /// A CRLF cut by the first MiB's read, and a chapter that starts past it: the book opened
    /// from the file has the chapters, checksums and texts of the same text laid out whole.
    func testAFileReadInPiecesHasTheChaptersOfTheWholeText() throws {
        var bytes = Array("CHAPTER I.\r\n\r\n".utf8) + filler((1 << 20) - 14 - 4)
        bytes += Array("end\r".utf8)
        precondition(bytes.count == 1 << 20)
        bytes += Array("\n\r\nCHAPTER II.\r\nThe Second\r\n\r\n".utf8) + filler(300_000) + Array("\r\n".utf8)
        for mark in [[], [0xEF, 0xBB, 0xBF] as [UInt8]] {
            let url = try directory.file("pieces-\(mark.count).txt", Data(mark + bytes))
            let outline = try BookReader.open(url)
            let whole = PlainTextLayout(text: String(decoding: bytes, as: UTF8.self), fallbackTitle: "pieces-\(mark.count)")
            XCTAssertEqual(outline.chapters.map(\.title), whole.chapters.map(\.title))
            // Chapter I, past a MiB, is read in parts (rule 7).
            XCTAssertEqual(outline.chapters.first?.title, "CHAPTER I. (part 1 of \(outline.chapters.count - 1))")
            XCTAssertEqual(outline.chapters.last?.title, "CHAPTER II. The Second")
            let source = try XCTUnwrap(outline.source as? PlainTextChapterSource)
            XCTAssertEqual(source.chapters, whole.chapters, "offsets and checksums as if read whole")
            for entry in outline.chapters {
                XCTAssertEqual(try outline.loadChapter(entry.index).text.unicodeScalars.count, entry.scalarCount)
            }
        }
    }

    /// The second read's hashes: the whole file's, and each range's across reads and a mark skipped.
    func testHashesOfRangesAcrossReadsAreTheirBytesHashes() throws {
        let body = filler(5 << 19)
        let data = Data([0xEF, 0xBB, 0xBF] + body)
        let url = try directory.file("hashes.txt", data)
        let ranges = [0..<10, 10..<10, 100..<((1 << 20) + 5), ((1 << 20) + 5)..<((2 << 20) + 1), ((2 << 20) + 7)..<body.count]
        let hashes = try PlainTextDecoder.hashes(of: url, skipping: 3, ranges: ranges)
        XCTAssertEqual(hashes.file, StableHash.value(data))
        XCTAssertEqual(hashes.ranges, ranges.map { StableHash.value(body[$0]) })
    }
}
