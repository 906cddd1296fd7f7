import Foundation
import LectorCore

/// A plain-text book's chapters: decided over the whole text when the file is opened
/// (`PlainTextLayout`), each laid out from its own lines when asked for. The source keeps no
/// book text, so a 48-MB file costs what the chapters near the listener cost.
///
///     let source = PlainTextChapterSource(file: url, text: .file(skipping: 0), chapters: layout.chapters)
///     try source.chapter(at: 0, title: "Chapter 1").text   // "Chapter 1.\n\nIt was…"
///
/// A UTF-8 file's chapter is read back from the file by its byte range. A chapter whose bytes
/// no longer match (the file was edited since it was opened) is refused rather than read with
/// offsets that do not match the bookmark or the page.
struct PlainTextChapterSource: ChapterSource {
    enum Text: Sendable {
        /// UTF-8 on disk; a chapter's bytes stand `skipping` bytes (a byte order mark) further on.
        case file(skipping: Int)
        /// Decoded from another encoding when the file was opened, kept as UTF-8.
        case decoded(String)
    }

    let file: URL
    let text: Text
    let chapters: [PlainTextLayout.ChapterSpan]
    var limits: BookLimits = .default

    /// The document name source spans carry: the file's name.
    var documentPath: String { file.lastPathComponent }

    var hasCover: Bool { false }

    func chapter(at index: Int, title: String) throws(BookError) -> Chapter {
        ChapterTextAssembler.chapter(index: index, title: title, pieces: [try piece(index, recordsMarkup: false)])
    }

    func chapterMarkup(at index: Int, title: String) throws(BookError) -> ChapterMarkup {
        let pieces = [try piece(index, recordsMarkup: true)]
        let chapter = ChapterTextAssembler.chapter(index: index, title: title, pieces: pieces)
        return ChapterMarkupAssembler.markup(of: chapter, pieces: pieces, imageID: { _ in nil })
    }

    func resource(id: String) throws(BookError) -> BookResource {
        throw .noSuchResource(file: file, id: id)
    }

    /// The whole file's speakable text, every chapter laid out (for checking source spans).
    func documentText(_ path: String) throws(BookError) -> String {
        guard path == documentPath else { throw .missingResource(file: file, path: path) }
        var parts: [String] = []
        for index in chapters.indices {
            let document = try document(at: index, recordsMarkup: false)
            if !document.isEmpty { parts.append(document.string(in: 0..<document.count)) }
        }
        return parts.joined(separator: "\n\n")
    }

    func cover() throws(BookError) -> BookCover? { nil }

    private func piece(_ index: Int, recordsMarkup: Bool) throws(BookError) -> ChapterTextAssembler.Piece {
        let document = try document(at: index, recordsMarkup: recordsMarkup)
        return .init(document: document, range: 0..<document.count, documentBase: chapters[index].documentOffset)
    }

    private func document(at index: Int, recordsMarkup: Bool) throws(BookError) -> DocumentText {
        let span = chapters[index]
        let lines: Substring
        switch text {
        case .decoded(let string):
            let utf8 = string.utf8
            let lower = utf8.index(utf8.startIndex, offsetBy: span.utf8Range.lowerBound)
            lines = Substring(utf8[lower..<utf8.index(lower, offsetBy: span.utf8Range.count)])
        case .file(let skipping):
            lines = Substring(try read(span.utf8Range, skipping: skipping))
        }
        guard StableHash.value(lines.utf8) == span.checksum else {
            throw .unreadable(file: file, reason: "the file changed since it was opened; open it again")
        }
        return PlainTextLayout.document(of: lines, chapter: span, documentPath: documentPath, recordsMarkup: recordsMarkup)
    }

    private func read(_ range: Range<Int>, skipping: Int) throws(BookError) -> String {
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(skipping + range.lowerBound))
            let data = try handle.read(upToCount: range.count) ?? Data()
            return String(decoding: data, as: UTF8.self)
        } catch {
            throw .unreadable(file: file, reason: "\(error)")
        }
    }
}
