import Foundation
@testable import LectorBooks
import LectorCore
import XCTest

/// A plain-text book is never held whole: UTF-8 is read into its text 1 MiB at a time
/// (`PlainTextDecoder.readUTF8`), the chapters are decided without building the whole speakable
/// text (`PlainTextLayout`), and each chapter is read back from the file by its bytes when it is
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
            let read = try XCTUnwrap(try PlainTextDecoder.readUTF8(url, size: UInt64(data.count)), "\(scalar) cut \(back) bytes before the end")
            XCTAssertEqual(read.text, String(decoding: data, as: UTF8.self))
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
        XCTAssertNil(try PlainTextDecoder.readUTF8(latin, size: UInt64(latinBytes.count)))
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
}
