import Foundation

/// A plain-text book's chapters, all cut when the file is opened (finding the headings means
/// reading the whole text anyway, and plain text is cheap to scan).
///
///     let source = PlainTextChapterSource(file: url, document: layout.document, ranges: …)
///     try source.chapter(at: 0, title: "Chapter 1").text   // "Chapter 1.\n\nIt was…"
struct PlainTextChapterSource: ChapterSource {
    let file: URL
    let document: DocumentText
    let ranges: [Range<Int>]

    var hasCover: Bool { false }

    func chapter(at index: Int, title: String) throws(BookError) -> Chapter {
        ChapterTextAssembler.chapter(index: index, title: title,
                                     pieces: [.init(document: document, range: ranges[index])])
    }

    func documentText(_ path: String) throws(BookError) -> String {
        guard path == document.path else { throw .missingResource(file: file, path: path) }
        return document.string(in: 0..<document.count)
    }

    func cover() throws(BookError) -> BookCover? { nil }
}
