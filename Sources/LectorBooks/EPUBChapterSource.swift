import Foundation

/// Loads an EPUB's chapters on demand from its archive: each chapter is the text from its start
/// (a document, or an element id inside one) up to the next chapter's start, across as many
/// spine documents as lie between.
///
/// Only the documents a chapter touches are inflated and parsed, and the last few parsed stay
/// cached, so the first chapter of a long book plays while the rest is still untouched:
///
///     let source = EPUBChapterSource(archive: archive, readingOrder: ["EPUB/s04.xhtml"], …)
///     let chapter = try source.chapter(at: 3, title: "190 A FOUR-LEAVED CLOVER")
final class EPUBChapterSource: ChapterSource, @unchecked Sendable {
    let archive: EPUBArchive
    let readingOrder: [String]
    let chapters: [PlannedChapter]
    let extractionOptions: [String: XHTMLTextExtractor.Options]
    let coverLocation: CoverLocation?
    let manifest: [ManifestItem]
    private let cache: DocumentCache

    init(archive: EPUBArchive, readingOrder: [String], chapters: [PlannedChapter],
         extractionOptions: [String: XHTMLTextExtractor.Options], coverLocation: CoverLocation?,
         manifest: [ManifestItem], cache: DocumentCache = DocumentCache()) {
        self.archive = archive
        self.readingOrder = readingOrder
        self.chapters = chapters
        self.extractionOptions = extractionOptions
        self.coverLocation = coverLocation
        self.manifest = manifest
        self.cache = cache
    }

    /// The same archive, documents and cache with a different chapter list (used while opening,
    /// when leading text and empty pages change the plan).
    func replanned(_ chapters: [PlannedChapter]) -> EPUBChapterSource {
        EPUBChapterSource(archive: archive, readingOrder: readingOrder, chapters: chapters,
                          extractionOptions: extractionOptions, coverLocation: coverLocation,
                          manifest: manifest, cache: cache)
    }

    var hasCover: Bool { coverLocation != nil }

    func chapter(at index: Int, title: String) throws(BookError) -> Chapter {
        ChapterTextAssembler.chapter(index: index, title: title, pieces: try pieces(ofChapter: index))
    }

    func documentText(_ path: String) throws(BookError) -> String {
        let document = try document(path, through: nil)
        return document.string(in: 0..<document.count)
    }

    /// The document's text, parsed at least as far as the element with id `anchor`, or whole
    /// when `anchor` is nil. Stopping at the next chapter's anchor is what lets the first chapter
    /// of a book kept in one huge XHTML file play before the rest of the file is parsed.
    func document(at spineIndex: Int, through anchor: String? = nil) throws(BookError) -> DocumentText {
        try document(readingOrder[spineIndex], through: anchor)
    }

    func document(_ path: String, through anchor: String?) throws(BookError) -> DocumentText {
        try cache.document(at: path, through: anchor) { (stopAt: String?) throws(BookError) -> DocumentText in
            var options = extractionOptions[path] ?? .init()
            options.stopAtAnchor = stopAt
            return try XHTMLTextExtractor.extract(try archive.data(at: path), path: path, file: archive.file,
                                                  options: options)
        }
    }

    /// The first heading of a document, parsing no further than it (for titling chapters of a
    /// book without a table of contents).
    func firstHeading(at spineIndex: Int) throws(BookError) -> String? {
        let path = readingOrder[spineIndex]
        var options = extractionOptions[path] ?? .init()
        options.stopAfterFirstHeading = true
        let probe = try XHTMLTextExtractor.extract(try archive.data(at: path), path: path, file: archive.file,
                                                   options: options)
        return probe.headings.first?.text
    }

    /// A chapter runs from its start to the next chapter start that lies after it. (Normally that
    /// is simply the next chapter; a table of contents listing anchors out of document order must
    /// still not produce overlapping chapters.) An anchor a document lacks means its beginning.
    func pieces(ofChapter index: Int) throws(BookError) -> [ChapterTextAssembler.Piece] {
        let start = chapters[index].start
        for later in chapters[(index + 1)...] where later.start.spineIndex >= start.spineIndex {
            if later.start.spineIndex > start.spineIndex {
                return try pieces(from: start, before: later.start)
            }
            guard let endAnchor = later.start.fragment else { continue }
            let document = try document(at: start.spineIndex, through: endAnchor)
            let startOffset = start.fragment.flatMap { document.anchors[$0] } ?? 0
            if let endOffset = document.anchors[endAnchor], endOffset > startOffset {
                return [.init(document: document, range: startOffset..<endOffset)]
            }
        }
        return try pieces(from: start, before: nil)
    }

    /// Text from `start` up to `end` (or the end of the book), where `end` lies in a later
    /// document than `start`.
    func pieces(from start: ChapterStart, before end: ChapterStart?) throws(BookError) -> [ChapterTextAssembler.Piece] {
        var pieces: [ChapterTextAssembler.Piece] = []
        let last = end.map { $0.spineIndex - 1 } ?? readingOrder.count - 1
        if start.spineIndex <= last {
            for spineIndex in start.spineIndex...last {
                let document = try document(at: spineIndex)
                let lower = spineIndex == start.spineIndex ? start.fragment.flatMap { document.anchors[$0] } ?? 0 : 0
                if lower < document.count { pieces.append(.init(document: document, range: lower..<document.count)) }
            }
        }
        if let end, let anchor = end.fragment {
            let document = try document(at: end.spineIndex, through: anchor)
            let upper = document.anchors[anchor] ?? 0
            if upper > 0 { pieces.append(.init(document: document, range: 0..<upper)) }
        }
        return pieces
    }

    func cover() throws(BookError) -> BookCover? {
        guard let location = coverLocation else { return nil }
        switch location {
        case .image(let path, let mediaType):
            return try image(at: path, mediaType: mediaType)
        case .page(let pagePath):
            guard archive.contains(pagePath) else { return nil }
            let page = try MarkupElement.parse(try archive.data(at: pagePath), path: pagePath, file: archive.file)
            let images = page.descendants("img").compactMap { $0.attribute("src") }
                + page.descendants("image").compactMap { $0.attribute("href") }
            guard let href = images.first else { return nil }
            switch ArchivePath.resolve(href, from: pagePath) {
            case .inside(let imagePath, _):
                return try image(at: imagePath, mediaType: manifest.first { $0.path == imagePath }?.mediaType)
            case .external: return nil
            case .escapes: throw .pathEscapesArchive(file: archive.file, path: href)
            }
        }
    }

    private func image(at path: String, mediaType: String?) throws(BookError) -> BookCover? {
        guard archive.contains(path) else { return nil }
        return BookCover(data: try archive.data(at: path), declaredMediaType: mediaType)
    }
}
