import Foundation

/// A plain-text book's chapters, all cut when the file is opened (finding the headings means
/// reading the whole text anyway, and plain text is cheap to scan).
///
///     let source = PlainTextChapterSource(file: url, document: layout.document, ranges: …)
///     try source.chapter(at: 0, title: "Chapter 1").text   // "Chapter 1.\n\nIt was…"
///
/// The read-along page's markup is recorded only when first asked for, by laying the file out
/// again; a file that no longer gives the same text (edited since it was opened) is refused
/// rather than shown with offsets that do not match what is spoken.
struct PlainTextChapterSource: ChapterSource {
    let file: URL
    let document: DocumentText
    let ranges: [Range<Int>]
    var limits: BookLimits = .default
    private let markedUp = MarkedUpDocument()

    init(file: URL, document: DocumentText, ranges: [Range<Int>], limits: BookLimits = .default) {
        self.file = file
        self.document = document
        self.ranges = ranges
        self.limits = limits
    }

    var hasCover: Bool { false }

    func chapter(at index: Int, title: String) throws(BookError) -> Chapter {
        ChapterTextAssembler.chapter(index: index, title: title,
                                     pieces: [.init(document: document, range: ranges[index])])
    }

    func chapterMarkup(at index: Int, title: String) throws(BookError) -> ChapterMarkup {
        let pieces = [ChapterTextAssembler.Piece(document: try markedUpDocument(), range: ranges[index])]
        let chapter = ChapterTextAssembler.chapter(index: index, title: title, pieces: pieces)
        return ChapterMarkupAssembler.markup(of: chapter, pieces: pieces, imageID: { _ in nil })
    }

    func resource(id: String) throws(BookError) -> BookResource {
        throw .noSuchResource(file: file, id: id)
    }

    func documentText(_ path: String) throws(BookError) -> String {
        guard path == document.path else { throw .missingResource(file: file, path: path) }
        return document.string(in: 0..<document.count)
    }

    func cover() throws(BookError) -> BookCover? { nil }

    private func markedUpDocument() throws(BookError) -> DocumentText {
        if let cached = markedUp.document { return cached }
        let (text, _, _) = try BookReader.readPlainText(file, limits: limits)
        let layout = PlainTextLayout(text: text, documentPath: document.path, fallbackTitle: "", recordsMarkup: true)
        guard layout.document.scalars == document.scalars else {
            throw .unreadable(file: file, reason: "the file changed since it was opened; open it again")
        }
        markedUp.document = layout.document
        return layout.document
    }

    /// The document laid out with markup, once, shared by every copy of the source.
    final class MarkedUpDocument: @unchecked Sendable {
        private var stored: DocumentText?
        private let lock = NSLock()

        var document: DocumentText? {
            get {
                lock.lock()
                defer { lock.unlock() }
                return stored
            }
            set {
                lock.lock()
                defer { lock.unlock() }
                stored = newValue
            }
        }
    }
}
