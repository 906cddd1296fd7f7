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
struct EPUBChapterSource: ChapterSource {
    let archive: EPUBArchive
    let readingOrder: [String]
    let chapters: [PlannedChapter]
    let extractionOptions: [String: XHTMLTextExtractor.Options]
    /// What every document is read with (notes, images, labels); `extractionOptions` adds
    /// what the table of contents targets in a document.
    let baseOptions: XHTMLTextExtractor.Options
    let coverLocation: CoverLocation?
    let manifest: [ManifestItem]
    /// Warnings of every document parsed so far (opening reports them).
    let warnings: WarningLog
    private let cache: DocumentCache
    /// Documents read again with their markup, for the read-along page only: kept apart so
    /// narration never waits on (or holds) the bigger markup-bearing texts.
    private let markupCache: DocumentCache
    /// Chapter indexes by the spine document they start in, ascending, and the spine documents
    /// any chapter starts in, ascending: lookups that were scans of every chapter, for every
    /// chapter (a spine of 20,000 documents took seconds to plan).
    private let chaptersBySpine: [Int: [Int]]
    private let spinesWithChapters: [Int]
    private let boundaryCache = ChapterBoundaries.Cache()
    /// The book's PLS lexicons, read when a chapter first needs them.
    private let lexicons: LexiconCache
    /// The notes read at a reference to them, found when a chapter first needs them.
    let readAtReferences: NotesReadAtReferences

    init(archive: EPUBArchive, readingOrder: [String], chapters: [PlannedChapter],
         extractionOptions: [String: XHTMLTextExtractor.Options], baseOptions: XHTMLTextExtractor.Options = .init(),
         coverLocation: CoverLocation?, manifest: [ManifestItem], cache: DocumentCache = DocumentCache(),
         markupCache: DocumentCache = DocumentCache(capacity: 2), warnings: WarningLog = WarningLog(),
         lexicons: LexiconCache = LexiconCache(), readAtReferences: NotesReadAtReferences = NotesReadAtReferences()) {
        self.lexicons = lexicons
        self.readAtReferences = readAtReferences
        self.archive = archive
        self.readingOrder = readingOrder
        self.chapters = chapters
        self.extractionOptions = extractionOptions
        self.baseOptions = baseOptions
        self.coverLocation = coverLocation
        self.manifest = manifest
        self.cache = cache
        self.markupCache = markupCache
        self.warnings = warnings
        var bySpine: [Int: [Int]] = [:]
        for (index, chapter) in chapters.enumerated() { bySpine[chapter.start.spineIndex, default: []].append(index) }
        chaptersBySpine = bySpine
        spinesWithChapters = bySpine.keys.sorted()
    }

    /// The first spine document after `spineIndex` that a chapter starts in.
    private func nextSpineWithChapter(after spineIndex: Int) -> Int? {
        var low = 0, high = spinesWithChapters.count
        while low < high {
            let middle = (low + high) / 2
            if spinesWithChapters[middle] <= spineIndex { low = middle + 1 } else { high = middle }
        }
        return low < spinesWithChapters.count ? spinesWithChapters[low] : nil
    }

    /// Chapters starting in `spineIndex` listed after `index`.
    private func chapters(inSpine spineIndex: Int, after index: Int) -> ArraySlice<Int> {
        let here = chaptersBySpine[spineIndex] ?? []
        var low = 0, high = here.count
        while low < high {
            let middle = (low + high) / 2
            if here[middle] <= index { low = middle + 1 } else { high = middle }
        }
        return here[low...]
    }

    /// The same archive, options and cache with another reading order (a contents page left
    /// out) and no chapters yet.
    func reading(_ order: [String]) -> EPUBChapterSource {
        EPUBChapterSource(archive: archive, readingOrder: order, chapters: [],
                          extractionOptions: extractionOptions, baseOptions: baseOptions, coverLocation: coverLocation,
                          manifest: manifest, cache: cache, markupCache: markupCache, warnings: warnings,
                          lexicons: lexicons)
    }

    /// The same archive, documents and cache with a different chapter list (used while opening,
    /// when leading text and empty pages change the plan).
    func replanned(_ chapters: [PlannedChapter]) -> EPUBChapterSource {
        EPUBChapterSource(archive: archive, readingOrder: readingOrder, chapters: chapters,
                          extractionOptions: extractionOptions, baseOptions: baseOptions, coverLocation: coverLocation,
                          manifest: manifest, cache: cache, markupCache: markupCache, warnings: warnings,
                          lexicons: lexicons, readAtReferences: readAtReferences)
    }

    var hasCover: Bool { coverLocation != nil }

    func chapter(at index: Int, title: String) throws(BookError) -> Chapter {
        let pieces = try withNotes(try pieces(ofChapter: index))
        var chapter = ChapterTextAssembler.chapter(index: index, title: title, pieces: pieces)
        addLexicons(to: &chapter, pieces: pieces)
        return chapter
    }

    /// The PLS lexicons that apply to a chapter: every one the manifest lists, and those its
    /// documents link (`<link rel="pronunciation" hreflang=…>`), each once.
    private func addLexicons(to chapter: inout Chapter, pieces: [ChapterTextAssembler.Piece]) {
        var links = lexicons.manifestLexicons(manifest).map { DocumentText.PronunciationLink(path: $0, language: nil) }
        for piece in pieces {
            for link in piece.document.pronunciationLinks where !links.contains(where: { $0.path == link.path }) {
                links.append(link)
            }
        }
        for link in links {
            let (lexicon, warning) = lexicons.lexicon(at: link.path, language: link.language, archive: archive)
            if let lexicon { chapter.pronunciation.lexicons.append(lexicon) }
            if let warning {
                chapter.warnings.append(warning)
                warnings.record(warning)
            }
        }
    }

    /// The chapter cut exactly as for narration, from its documents read again with markup
    /// (recording changes nothing in the text, so the cut is the same); the text assembled from
    /// those pieces is the chapter's text, and the markup's runs index it.
    func chapterMarkup(at index: Int, title: String) throws(BookError) -> ChapterMarkup {
        let pieces = try withNotes(try pieces(ofChapter: index, for: .markup), for: .markup)
        let chapter = ChapterTextAssembler.chapter(index: index, title: title, pieces: pieces)
        let images = shownImageIDs()
        return ChapterMarkupAssembler.markup(of: chapter, pieces: pieces, imageID: { images[$0] })
    }

    /// Archive path → manifest id of every image the page may show. An id that is only dots
    /// would make `resource/..` a path of its own, so such an item is not shown.
    private func shownImageIDs() -> [String: String] {
        var ids: [String: String] = [:]
        for item in manifest {
            guard let path = item.path, BookResource.shownMediaType(item.mediaType) != nil,
                  !item.id.isEmpty, !item.id.allSatisfy({ $0 == "." }), ids[path] == nil else { continue }
            ids[path] = item.id
        }
        return ids
    }

    func resource(id: String) throws(BookError) -> BookResource {
        guard let item = manifest.first(where: { $0.id == id }), let path = item.path,
              let mediaType = BookResource.shownMediaType(item.mediaType) else {
            throw .noSuchResource(file: archive.file, id: id)
        }
        return BookResource(mediaType: mediaType, data: try archive.data(at: path))
    }

    func documentText(_ path: String) throws(BookError) -> String {
        if path.hasSuffix(XHTMLTextExtractor.notesPathSuffix) {
            let notes = try document(String(path.dropLast(XHTMLTextExtractor.notesPathSuffix.count)), through: nil).notes
            guard let text = notes.text?.document else { return "" }
            return text.string(in: 0..<text.count)
        }
        let document = try document(path, through: nil)
        return document.string(in: 0..<document.count)
    }

    /// The whole document: a parse kept in either cache, else parsed again and not kept (so the
    /// chapters being read keep their places).
    func wholeDocument(_ path: String) throws(BookError) -> DocumentText {
        if let kept = cache.whole(at: path) ?? markupCache.whole(at: path) { return kept }
        let document = try XHTMLTextExtractor.extract(try archive.data(at: path), path: path, file: archive.file,
                                                      options: options(for: path))
        warnings.record(document.warning)
        return document
    }

    /// What a document is read for: narration, or the read-along page (the same text, with its
    /// `DocumentText.markup`, cached apart).
    enum Reading {
        case speech, markup
    }

    /// The document's text, parsed at least as far as the element with id `anchor`, or whole
    /// when `anchor` is nil. Stopping at the next chapter's anchor is what lets the first chapter
    /// of a book kept in one huge XHTML file play before the rest of the file is parsed.
    func document(at spineIndex: Int, through anchor: String? = nil,
                  for reading: Reading = .speech) throws(BookError) -> DocumentText {
        try document(readingOrder[spineIndex], through: anchor, for: reading)
    }

    func document(_ path: String, through anchor: String?, for reading: Reading = .speech) throws(BookError) -> DocumentText {
        try (reading == .markup ? markupCache : cache).document(at: path, through: anchor) {
            (stopAt: String?) throws(BookError) -> DocumentText in
            var options = self.options(for: path)
            options.stopAtAnchor = stopAt
            options.recordsMarkup = reading == .markup
            let document = try XHTMLTextExtractor.extract(try archive.data(at: path), path: path, file: archive.file,
                                                          options: options)
            warnings.record(document.warning)
            return document
        }
    }

    /// What the document at `path` is read with: the book's options and what the table of
    /// contents targets in it.
    func options(for path: String) -> XHTMLTextExtractor.Options {
        guard var options = extractionOptions[path] else { return baseOptions }
        options.reading = baseOptions.reading
        options.labels = baseOptions.labels
        options.coverImagePath = baseOptions.coverImagePath
        return options
    }

    /// The first heading of a document, parsing no further than it (for titling chapters of a
    /// book without a table of contents).
    func firstHeading(at spineIndex: Int) throws(BookError) -> String? {
        let path = readingOrder[spineIndex]
        var options = self.options(for: path)
        options.stopAfterFirstHeading = true
        let probe = try XHTMLTextExtractor.extract(try archive.data(at: path), path: path, file: archive.file,
                                                   options: options)
        warnings.record(probe.warning)
        return probe.headings.first?.text
    }

    /// A chapter runs from its start to the nearest other chapter start after it, in whichever
    /// document that is. Normally that is simply the next chapter, and this chapter's document is
    /// parsed only as far as the next chapter's anchor; a table of contents listing anchors out of
    /// document order still never produces overlapping chapters. Two entries at the same spot
    /// (nested sections opening together) leave the earlier one empty: it speaks its title. An
    /// anchor the document lacks means the document's beginning for the first chapter in that
    /// document, and an empty chapter otherwise.
    func pieces(ofChapter index: Int, for reading: Reading = .speech) throws(BookError) -> [ChapterTextAssembler.Piece] {
        let spineIndex = chapters[index].start.spineIndex
        let nextHere = chapters(inSpine: spineIndex, after: index).lazy.map { chapters[$0] }
            .first { $0.start.fragment != nil }
        var document = try document(at: spineIndex, through: nextHere?.start.fragment, for: reading)
        while true {
            if let fragment = chapters[index].start.fragment, document.anchors[fragment] == nil, !document.isComplete {
                document = try self.document(at: spineIndex, for: reading)
                continue
            }
            guard let startOffset = startOffset(ofChapter: index, in: document) else { return [] }
            let known = sortedBoundaries(inSpine: spineIndex, document: document)
            if (known.lastChapterAt[startOffset] ?? -1) > index { return [] }
            if let end = known.firstOffset(after: startOffset) {
                return [.init(document: document, range: startOffset..<end)]
            }
            if !document.isComplete {
                document = try self.document(at: spineIndex, for: reading)
                continue
            }
            let nextDocument = nextSpineWithChapter(after: spineIndex)
            return try pieces(from: (spineIndex, startOffset), beforeChaptersIn: nextDocument, for: reading)
        }
    }

    /// What chapter `index` holds, when it is cheap to tell (see `TitleOnlyChapters`).
    enum TitleOnly {
        /// Words other than headings, or not cheap to tell.
        case no
        /// Headings only: the next chapter may start here.
        case headings
        /// Nothing at all (its anchor is missing): the next chapter starts where it starts.
        case nothing
    }

    func titleOnly(chapter index: Int) throws(BookError) -> TitleOnly {
        guard chapters.indices.contains(index + 1) else { return .no }
        let start = chapters[index].start, next = chapters[index + 1].start
        let anchorHere = next.spineIndex == start.spineIndex ? next.fragment : nil
        let path = readingOrder[start.spineIndex]
        let isSmall = (archive.declaredSize(of: path) ?? .max) <= EPUBOpener.smallDocumentSize
        guard isSmall || anchorHere != nil else { return .no }
        let document: DocumentText
        if isSmall {
            document = try self.document(at: start.spineIndex)
        } else if let anchor = anchorHere, chaptersBySpine[start.spineIndex]?.first == index {
            // The document's first bytes, read until the next chapter's anchor or enough text:
            // a parse that has to go further than those bytes tells nothing.
            var options = self.options(for: path)
            options.stopAtAnchor = anchor
            options.stopAfterScalars = TitleOnlyChapters.probeScalars
            let bytes = try archive.prefix(at: path, count: TitleOnlyChapters.probeBytes)
            do throws(BookError) {
                document = try XHTMLTextExtractor.extractStrictly(bytes, path: path, file: archive.file, options: options)
            } catch {
                return .no
            }
        } else {
            return .no
        }
        // An anchor the whole document lacks: the chapter has no text at all.
        guard let startOffset = startOffset(ofChapter: index, in: document) else { return document.isComplete ? .nothing : .no }
        let end: Int
        if let anchor = anchorHere {
            guard let offset = document.anchors[anchor] else { return .no }
            end = offset
        } else if next.spineIndex == start.spineIndex + 1, next.fragment == nil, document.isComplete {
            end = document.count
        } else {
            return .no
        }
        guard startOffset <= end else { return .no }
        var inHeading = [Bool](repeating: false, count: end - startOffset)
        for heading in document.headings where heading.end > startOffset && heading.offset < end {
            for offset in max(startOffset, heading.offset)..<min(end, heading.end) { inHeading[offset - startOffset] = true }
        }
        for offset in startOffset..<end where !inHeading[offset - startOffset] {
            if !document.scalars[offset].properties.isWhitespace { return .no }
        }
        return .headings
    }

    /// Where chapter `index` starts in `document`, or nil when it is empty or (for a document
    /// parsed only partway) not known from this text.
    private func startOffset(ofChapter index: Int, in document: DocumentText) -> Int? {
        let start = chapters[index].start
        guard let fragment = start.fragment else { return 0 }
        if let offset = document.anchors[fragment] { return offset }
        guard document.isComplete else { return nil }
        let firstInDocument = chaptersBySpine[start.spineIndex]?.first == index
        return firstInDocument ? 0 : nil
    }

    /// The known start offsets of the chapters in one document, other than `excluded`.
    private func boundaries(inSpine spineIndex: Int, document: DocumentText,
                            excluding excluded: Int?) -> [(index: Int, offset: Int)] {
        (chaptersBySpine[spineIndex] ?? []).compactMap { index in
            guard index != excluded, let offset = startOffset(ofChapter: index, in: document) else { return nil }
            return (index, offset)
        }
    }

    /// `boundaries(inSpine:document:excluding: nil)` sorted, for the last document asked about:
    /// loading every chapter of a document holding thousands was quadratic.
    private func sortedBoundaries(inSpine spineIndex: Int, document: DocumentText) -> ChapterBoundaries {
        let key = ChapterBoundaries.Key(spineIndex: spineIndex, count: document.count,
                                        anchors: document.anchors.count, isComplete: document.isComplete)
        return boundaryCache.boundaries(for: key) {
            ChapterBoundaries(boundaries(inSpine: spineIndex, document: document, excluding: nil))
        }
    }

    /// The chapter starting at `offset` in a document (the last listed, if several do).
    func chapterIndex(startingAt offset: Int, inSpine spineIndex: Int) throws(BookError) -> Int? {
        let firstAnchor = chaptersBySpine[spineIndex]?.first.flatMap { chapters[$0].start.fragment }
        let document = try document(at: spineIndex, through: firstAnchor)
        return boundaries(inSpine: spineIndex, document: document, excluding: nil).last { $0.offset == offset }?.index
    }

    /// Text from a position to the end of its document, through any documents no chapter starts
    /// in, and on into `nextDocument` up to its first chapter start (or to the end of the book).
    func pieces(from start: (spineIndex: Int, offset: Int), beforeChaptersIn nextDocument: Int?,
                for reading: Reading = .speech) throws(BookError) -> [ChapterTextAssembler.Piece] {
        var pieces: [ChapterTextAssembler.Piece] = []
        let last = nextDocument.map { $0 - 1 } ?? readingOrder.count - 1
        if start.spineIndex <= last {
            for spineIndex in start.spineIndex...last {
                let document = try document(at: spineIndex, for: reading)
                let lower = spineIndex == start.spineIndex ? min(start.offset, document.count) : 0
                if lower < document.count { pieces.append(.init(document: document, range: lower..<document.count)) }
            }
        }
        guard let nextDocument, let first = chaptersBySpine[nextDocument]?.first,
              let anchor = chapters[first].start.fragment else { return pieces }
        let document = try document(at: nextDocument, through: anchor, for: reading)
        let upper = boundaries(inSpine: nextDocument, document: document, excluding: nil).map(\.offset).min() ?? 0
        if upper > 0 { pieces.append(.init(document: document, range: 0..<upper)) }
        return pieces
    }

    func cover() throws(BookError) -> BookCover? {
        guard let location = coverLocation else { return nil }
        switch location {
        case .image(let path, let mediaType):
            return try image(at: path, mediaType: mediaType)
        case .page(let pagePath):
            guard archive.contains(pagePath) else { return nil }
            let page = try MarkupElement.parse(try archive.data(at: pagePath), path: pagePath, file: archive.file,
                                               lenient: true)
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

/// Where the chapters of one document start, sorted: the next start after an offset in
/// O(log n), and the last chapter starting at each offset.
struct ChapterBoundaries {
    struct Key: Equatable {
        var spineIndex: Int
        var count: Int
        var anchors: Int
        var isComplete: Bool
    }

    /// The last boundaries made, for one document (chapters are loaded document by document).
    final class Cache: @unchecked Sendable {
        private var last: (key: Key, boundaries: ChapterBoundaries)?
        private let lock = NSLock()

        func boundaries(for key: Key, make: () -> ChapterBoundaries) -> ChapterBoundaries {
            lock.lock()
            if let last, last.key == key {
                lock.unlock()
                return last.boundaries
            }
            lock.unlock()
            let made = make()
            lock.lock()
            last = (key, made)
            lock.unlock()
            return made
        }
    }

    /// Distinct start offsets, ascending.
    let offsets: [Int]
    let lastChapterAt: [Int: Int]

    init(_ boundaries: [(index: Int, offset: Int)]) {
        var last: [Int: Int] = [:]
        for boundary in boundaries { last[boundary.offset] = max(last[boundary.offset] ?? -1, boundary.index) }
        lastChapterAt = last
        offsets = last.keys.sorted()
    }

    func firstOffset(after offset: Int) -> Int? {
        var low = 0, high = offsets.count
        while low < high {
            let middle = (low + high) / 2
            if offsets[middle] <= offset { low = middle + 1 } else { high = middle }
        }
        return low < offsets.count ? offsets[low] : nil
    }
}
