import Foundation

/// Opens an EPUB 2 or 3 into a `BookOutline`: container, package document, encryption check,
/// table of contents and chapter plan; content documents are parsed only where the plan needs
/// them (text before the first table-of-contents entry, and small documents that may be empty).
///
/// Chapters are the table-of-contents entries in reading order, nested ones included, each
/// running from its target to the next entry's target, so entries that are anchors inside one
/// file (The Waste Land's five parts) become separate chapters. Then:
/// - Text before the first entry becomes a leading chapter when it has at least
///   `leadingChapterMinimumWords` words (an epigraph, a preface), titled by its first heading or
///   the document's `<title>`; a shorter title page is simply read at the start of chapter 1.
/// - Entries starting on a small page (≤ `smallDocumentSize` bytes) without any text, and
///   finding none after it, are dropped, e.g. an NCX "Cover" entry on an image-only page.
///   Other entries without text of their own speak their title (see `EPUBChapterSource`).
/// - Entries pointing at the same place are merged, titles joined by " — ".
/// - Without a table of contents, or with one that would leave more than half of the book in one
///   chapter, each spine document is a chapter titled by the table of contents' entry for it,
///   its first heading, or "Chapter N".
/// - Links that name files that are not there are looked for leniently (`TOCLinkRepair`).
/// - The navigation document is never read as a chapter, even when the spine lists it: its
///   content is the track list itself; nor is the book's own contents page (`ContentsPage`).
/// - A chapter that would speak only its title merges into the next (`TitleOnlyChapters`).
/// - What was repaired is said in the outline's warnings, one line each.
enum EPUBOpener {
    static let leadingChapterMinimumWords = 20
    static let smallDocumentSize: UInt64 = 4096

    static func open(_ file: URL, limits: BookLimits, options reading: BookReadingOptions) throws(BookError) -> BookOutline {
        let archive = try EPUBArchive(file: file, limits: limits)
        let packagePath = try packageDocumentPath(archive)
        let package = try PackageDocument(root: try MarkupElement.parse(try archive.data(at: packagePath),
                                                                        path: packagePath, file: file),
                                          path: packagePath, file: file)
        if archive.contains(EncryptionManifest.path) {
            try EncryptionManifest.checkReadable(try archive.data(at: EncryptionManifest.path), package: package,
                                                 file: file)
        }

        let navigationItem = package.manifest.first { $0.properties.contains("nav") && $0.path != nil }
        let wholeOrder = try readingOrder(package, excluding: navigationItem?.path, archive: archive)
        guard !wholeOrder.isEmpty else { throw .emptyBook(file: file) }
        let links = TOCLinkRepair.repaired(try tableOfContents(package, navigation: navigationItem, archive: archive),
                                           readingOrder: wholeOrder, packagePath: packagePath, exists: archive.contains)
        var entries = links.entries

        var options: [String: XHTMLTextExtractor.Options] = [:]
        for entry in entries {
            if let fragment = entry.fragment {
                options[entry.path, default: .init()].targetedIDs.insert(fragment)
            } else {
                options[entry.path, default: .init()].wholeDocumentTargeted = true
            }
        }
        let cover = coverLocation(package)
        var baseOptions = XHTMLTextExtractor.Options()
        baseOptions.reading = reading
        baseOptions.labels = SpokenLabels(language: package.language)
        switch cover {
        case .image(let path, _)?:
            baseOptions.coverImagePath = path
        case .page(let path)?:
            options[path, default: baseOptions].isCoverPage = true
        case nil:
            break
        }
        let wholeSource = EPUBChapterSource(archive: archive, readingOrder: wholeOrder, chapters: [],
                                            extractionOptions: options, baseOptions: baseOptions,
                                            coverLocation: cover, manifest: package.manifest)
        for warning in links.warnings { wholeSource.warnings.record(warning) }
        let contentsPages = try contentsPages(wholeOrder, package: package, source: wholeSource)
        let source = contentsPages.isEmpty ? wholeSource : wholeSource.reading(wholeOrder.filter { !contentsPages.contains($0) })
        for page in wholeOrder where contentsPages.contains(page) {
            source.warnings.record("\(page) is the book's own table of contents (mostly links into the book); "
                                   + "not read as a chapter")
        }
        let readingOrder = source.readingOrder
        let spineIndexes = Dictionary(readingOrder.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        entries = entries.filter { spineIndexes[$0.path] != nil }
        let bookTitle = package.title ?? file.deletingPathExtension().lastPathComponent

        var chapters: [PlannedChapter] = []
        var perDocument = entries.isEmpty
        if !perDocument {
            chapters = mergedEntries(entries, spineIndexes: spineIndexes)
            chapters = try withLeadingText(chapters, source: source, bookTitle: bookTitle)
            if let span = largestSpan(chapters, documents: readingOrder.count) {
                perDocument = true
                source.warnings.record("the table of contents leaves \(span) of the \(readingOrder.count) documents in one "
                                       + "chapter; read as one chapter per document instead")
            }
        }
        if perDocument {
            var titles: [Int: String] = [:]
            for entry in entries where entry.fragment == nil && !entry.title.isEmpty {
                if let index = spineIndexes[entry.path], titles[index] == nil { titles[index] = entry.title }
            }
            chapters = try chaptersPerDocument(source, titles: titles)
        }
        chapters = try droppingTextlessPages(chapters, source: source)
        let merge = try TitleOnlyChapters.merged(chapters, source: source)
        chapters = merge.chapters
        if let first = merge.mergedTitles.first {
            source.warnings.record("\(merge.mergedTitles.count) chapter\(merge.mergedTitles.count == 1 ? "" : "s") holding "
                                   + "only a title (e.g. \"\(first)\") read at the start of the next one")
        }
        guard !chapters.isEmpty else { throw .emptyBook(file: file) }
        if perDocument {
            for index in chapters.indices where chapters[index].title.isEmpty {
                chapters[index].title = "Chapter \(index + 1)"
            }
        }

        let identity: String
        if let identifier = package.identifier {
            identity = identifier
        } else {
            do {
                identity = ContentHash.identity(hex: try ContentHash.fnv1a64(ofFile: file))
            } catch {
                throw .unreadable(file: file, reason: "\(error)")
            }
        }
        return BookOutline(
            sourceURL: file, identity: identity, title: bookTitle, authors: package.authors,
            language: package.language, format: package.isEPUB3 ? .epub3 : .epub2, textEncoding: nil,
            chapters: chapters.enumerated().map { ChapterEntry(index: $0, title: $1.title, depth: $1.depth) },
            warnings: source.warnings.all, source: source.replanned(chapters))
    }

    private static func packageDocumentPath(_ archive: EPUBArchive) throws(BookError) -> String {
        let containerPath = "META-INF/container.xml"
        guard archive.contains(containerPath) else { throw .missingContainer(file: archive.file) }
        let container = try MarkupElement.parse(try archive.data(at: containerPath), path: containerPath,
                                                file: archive.file)
        let rootfiles = container.descendants("rootfile")
        let rootfile = rootfiles.first { $0.attribute("media-type") == "application/oebps-package+xml" }
            ?? rootfiles.first
        guard let fullPath = rootfile?.attribute("full-path"), !fullPath.isEmpty else {
            throw .missingPackageDocument(file: archive.file, path: "")
        }
        guard case .inside(let path, _) = ArchivePath.resolve(fullPath, from: "") else {
            throw .pathEscapesArchive(file: archive.file, path: fullPath)
        }
        guard archive.contains(path) else { throw .missingPackageDocument(file: archive.file, path: path) }
        return path
    }

    /// Linear spine documents that hold XHTML, in order, each once, without the navigation document.
    private static func readingOrder(_ package: PackageDocument, excluding navigationPath: String?,
                                     archive: EPUBArchive) throws(BookError) -> [String] {
        // Dictionaries, not searches: a spine may list tens of thousands of items.
        let items = Dictionary(package.manifest.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var order: [String] = []
        var seen: Set<String> = []
        for itemref in package.spine where itemref.isLinear {
            guard let item = items[itemref.idref], let path = item.path,
                  path != navigationPath, !seen.contains(path) else { continue }
            let looksLikeXHTML = item.isXHTML || [".xhtml", ".html", ".htm"].contains { path.lowercased().hasSuffix($0) }
            guard looksLikeXHTML else { continue }
            guard archive.contains(path) else { throw .missingResource(file: archive.file, path: path) }
            order.append(path)
            seen.insert(path)
        }
        return order
    }

    /// The EPUB 3 navigation document's toc, else the NCX's navMap; empty when neither has entries.
    private static func tableOfContents(_ package: PackageDocument, navigation: ManifestItem?,
                                        archive: EPUBArchive) throws(BookError) -> [TOCEntry] {
        if let path = navigation?.path, archive.contains(path) {
            let root = try MarkupElement.parse(try archive.data(at: path), path: path, file: archive.file)
            let entries = try TableOfContentsParser.navigationEntries(root, path: path, file: archive.file)
            if !entries.isEmpty { return entries }
        }
        let ncx = package.spineTOCID.flatMap { package.item(id: $0) } ?? package.manifest.first(where: \.isNCX)
        if let path = ncx?.path, archive.contains(path) {
            let root = try MarkupElement.parse(try archive.data(at: path), path: path, file: archive.file)
            return try TableOfContentsParser.ncxEntries(root, path: path, file: archive.file)
        }
        return []
    }

    private static func coverLocation(_ package: PackageDocument) -> CoverLocation? {
        if let item = package.manifest.first(where: { $0.properties.contains("cover-image") }), let path = item.path {
            return .image(path: path, mediaType: item.mediaType)
        }
        if let content = package.coverMetaContent {
            var item = package.item(id: content)
            if item == nil, case .inside(let path, _) = ArchivePath.resolve(content, from: package.path) {
                item = package.item(path: path)
            }
            if let item, let path = item.path {
                if item.isImage { return .image(path: path, mediaType: item.mediaType) }
                if item.isXHTML { return .page(path: path) }
            }
        }
        if let path = package.guideCoverPath {
            if let item = package.item(path: path), item.isImage { return .image(path: path, mediaType: item.mediaType) }
            return .page(path: path)
        }
        return nil
    }

    /// Table-of-contents entries in spine order (entries in one document keep their own order),
    /// entries with the same target merged.
    private static func mergedEntries(_ entries: [TOCEntry], spineIndexes: [String: Int]) -> [PlannedChapter] {
        let ordered = entries.enumerated().sorted { lhs, rhs in
            let left = spineIndexes[lhs.element.path] ?? 0, right = spineIndexes[rhs.element.path] ?? 0
            return left != right ? left < right : lhs.offset < rhs.offset
        }.map(\.element)
        var chapters: [PlannedChapter] = []
        var indexes: [ChapterStart: Int] = [:]
        for entry in ordered {
            let start = ChapterStart(spineIndex: spineIndexes[entry.path] ?? 0, fragment: entry.fragment)
            if let existing = indexes[start] {
                if !entry.title.isEmpty {
                    let joined = chapters[existing].title.isEmpty ? entry.title : chapters[existing].title + " — " + entry.title
                    chapters[existing].title = MarkupElement.capped(joined)
                }
                continue
            }
            indexes[start] = chapters.count
            chapters.append(PlannedChapter(title: entry.title, depth: entry.depth, start: start))
        }
        for index in chapters.indices where chapters[index].title.isEmpty {
            chapters[index].title = "Chapter \(index + 1)"
        }
        return chapters
    }

    /// Gives text before the first entry its own chapter when it is substantial, and otherwise
    /// lets chapter 1 start at the very beginning so nothing is lost.
    private static func withLeadingText(_ chapters: [PlannedChapter], source: EPUBChapterSource,
                                        bookTitle: String) throws(BookError) -> [PlannedChapter] {
        guard let first = chapters.first, first.start != .beginning else { return chapters }
        // Everything before the first chapter start: the documents before its document, then
        // its document up to the earliest start in it.
        let leading = try source.replanned(chapters).pieces(from: (0, 0), beforeChaptersIn: first.start.spineIndex)
        let words = ChapterTextAssembler.wordCount(leading)
        guard words > 0 else { return chapters }
        var result = chapters
        if words >= leadingChapterMinimumWords {
            let title = leading.lazy.compactMap { $0.document.firstHeading(in: $0.range)?.text }.first
                ?? leading.lazy.compactMap(\.document.title).first
                ?? bookTitle
            result.insert(PlannedChapter(title: title, depth: 0, start: .beginning), at: 0)
        } else {
            // The chapter whose start ends the leading text (the earliest one in that document,
            // which an out-of-order table of contents may not list first) begins at the top.
            let upper = leading.last.map(\.range.upperBound) ?? 0
            let target = try source.replanned(chapters).chapterIndex(startingAt: upper, inSpine: first.start.spineIndex) ?? 0
            result[target].start = .beginning
        }
        return result
    }

    /// One chapter per document, titled by the table of contents where it names the document,
    /// else by its first heading (an empty title is numbered later).
    private static func chaptersPerDocument(_ source: EPUBChapterSource,
                                            titles: [Int: String] = [:]) throws(BookError) -> [PlannedChapter] {
        var chapters: [PlannedChapter] = []
        for spineIndex in source.readingOrder.indices {
            let path = source.readingOrder[spineIndex]
            let heading: String?
            if let title = titles[spineIndex] {
                heading = title
            } else if let size = source.archive.declaredSize(of: path), size <= smallDocumentSize {
                heading = try source.document(at: spineIndex, through: nil).headings.first?.text
            } else {
                heading = try source.firstHeading(at: spineIndex)
            }
            chapters.append(PlannedChapter(title: heading ?? "", depth: 0,
                                           start: ChapterStart(spineIndex: spineIndex, fragment: nil)))
        }
        return chapters
    }

    /// When one chapter of the plan would hold more than half of a book of 4 documents or more,
    /// the table of contents is unusable (links only to the first chapters, a single "Start"
    /// entry): the number of documents in that chapter. Nil for a usable plan.
    static func largestSpan(_ chapters: [PlannedChapter], documents: Int) -> Int? {
        guard documents >= 4 else { return nil }
        let starts = Array(Set(chapters.map(\.start.spineIndex))).sorted()
        var largest = 0
        for (index, start) in starts.enumerated() {
            let end = index + 1 < starts.count ? starts[index + 1] : documents
            largest = max(largest, end - start)
        }
        return largest * 2 > documents ? largest : nil
    }

    /// The book's own contents pages among the front matter (the first documents of the reading
    /// order, up to the first one with text and no links: a chapter) and the one the guide names
    /// (`ContentsPage`); never every document.
    private static func contentsPages(_ order: [String], package: PackageDocument,
                                      source: EPUBChapterSource) throws(BookError) -> Set<String> {
        var found: Set<String> = []
        func check(_ path: String) throws(BookError) -> Bool {
            let size = source.archive.declaredSize(of: path) ?? .max
            guard size <= ContentsPage.maximumSize else { return false }
            guard ContentsPage.mayBeContentsPage(try source.archive.prefix(at: path, count: ContentsPage.lookedAtBytes)) else {
                return size <= smallDocumentSize   // a title page: look further; a chapter: stop
            }
            if ContentsPage.isContentsPage(try source.document(path, through: nil)) { found.insert(path) }
            return true
        }
        for path in order.prefix(ContentsPage.leadingDocuments) where try !check(path) { break }
        if let guide = package.guideTOCPath, order.contains(guide), !found.contains(guide) { _ = try check(guide) }
        return found.count == order.count ? [] : found
    }

    /// Drops chapters that start in a small document without any text (a cover image page, a
    /// blank separator) and find no text after it either. An entry that merely has no text of
    /// its own in a document with text (a "Part One" opening at the same spot as "Chapter 1") is
    /// kept and speaks its title, whatever the document's size.
    private static func droppingTextlessPages(_ chapters: [PlannedChapter],
                                              source: EPUBChapterSource) throws(BookError) -> [PlannedChapter] {
        let planned = source.replanned(chapters)
        var kept: [PlannedChapter] = []
        for (index, chapter) in chapters.enumerated() {
            let path = source.readingOrder[chapter.start.spineIndex]
            if (source.archive.declaredSize(of: path) ?? .max) <= smallDocumentSize,
               try source.document(at: chapter.start.spineIndex).isEmpty,
               ChapterTextAssembler.wordCount(try planned.pieces(ofChapter: index)) == 0 {
                continue
            }
            kept.append(chapter)
        }
        return kept
    }
}
