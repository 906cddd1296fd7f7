import Foundation
import LectorXML

/// An opened book whose chapters are listed but not yet read: what the daemon holds while it
/// plays, loading each chapter's text when it is about to be spoken.
///
/// Opening an EPUB reads the container, the package document and the table of contents, plus
/// only the content documents needed to place the first chapter; a chapter's documents are
/// inflated and parsed by `loadChapter(_:)`, and the cover by `loadCover()`. So the first
/// chapter of a thousand-page book starts playing in milliseconds:
///
///     let outline = try BookReader.open(url)
///     player.setTracks(outline.chapters.map(\.title))
///     let first = try outline.loadChapter(0)          // parse only what chapter 0 needs
///     speak(first.text)
///     Task.detached { _ = try? outline.loadChapter(1) }  // safe: the outline is Sendable
///
/// Loading the same chapter twice gives the same text; loads from several threads are
/// serialised on the archive.
public struct BookOutline: Sendable {
    public let sourceURL: URL
    /// See `Book.identity`.
    public let identity: String
    public let title: String
    public let authors: [String]
    public let language: String?
    public let format: BookFormat
    public let textEncoding: TextEncoding?
    public let chapters: [ChapterEntry]
    /// What had to be forgiven while opening, one line each for a log: content documents that
    /// are not well-formed XML and were read leniently (see `Chapter.warnings`). Documents are
    /// parsed lazily, so a broken one that opening did not need shows up only in the warnings of
    /// the chapters read from it.
    public let warnings: [String]
    let source: any ChapterSource
    /// Stops this book's parses (chapters, markup, the cover page) once it is no longer wanted:
    /// given to `BookReader.open`, cancelled by whoever replaces the book.
    public internal(set) var cancellation: ParseCancellation?

    init(sourceURL: URL, identity: String, title: String, authors: [String], language: String?,
         format: BookFormat, textEncoding: TextEncoding?, chapters: [ChapterEntry], warnings: [String] = [],
         source: any ChapterSource) {
        self.sourceURL = sourceURL
        self.identity = identity
        self.title = title
        self.authors = authors
        self.language = language
        self.format = format
        self.textEncoding = textEncoding
        self.chapters = chapters
        self.warnings = warnings
        self.source = source
    }

    /// True when the book names a cover (it may still turn out to be missing from the archive).
    public var hasCover: Bool { source.hasCover }

    /// Reads and converts chapter `index`'s text. A chapter whose range holds no text (a
    /// "Part One" entry on an empty page) speaks its title; its `sourceMap` is then empty.
    public func loadChapter(_ index: Int) throws(BookError) -> Chapter {
        guard chapters.indices.contains(index) else {
            throw .noSuchChapter(file: sourceURL, index: index, count: chapters.count)
        }
        return try guarded { () throws(BookError) in try source.chapter(at: index, title: chapters[index].title) }
    }

    /// Chapter `index` as the read-along page shows it: the book's markup, sanitised, with every
    /// stretch of `loadChapter(index).text` in a `<span data-o="N">` at its scalar offset (see
    /// `ChapterMarkup`). The chapter's documents are read again for it, so narration never pays
    /// for markup; a chapter with no text of its own shows its title.
    public func chapterMarkup(at index: Int) throws(BookError) -> ChapterMarkup {
        guard chapters.indices.contains(index) else {
            throw .noSuchChapter(file: sourceURL, index: index, count: chapters.count)
        }
        return try guarded { () throws(BookError) in try source.chapterMarkup(at: index, title: chapters[index].title) }
    }

    /// An image the book's manifest lists (JPEG, PNG, GIF, WebP or SVG), by manifest id: what a
    /// fragment's `<img src="resource/ID">` shows. Anything else, and any id of a plain-text
    /// book, throws `noSuchResource`.
    public func resource(id: String) throws(BookError) -> BookResource {
        try source.resource(id: id)
    }

    /// The cover image's bytes, or nil when the book has none.
    public func loadCover() throws(BookError) -> BookCover? {
        try guarded { () throws(BookError) in try source.cover() }
    }

    /// A content document's whole speakable text, the text `SourceSpan.documentOffset` indexes:
    /// `path` is a `SourceSpan.documentPath` (`EPUB/c1.xhtml`, or `EPUB/c1.xhtml#notes` for the
    /// notes read out of their place).
    public func documentText(_ path: String) throws(BookError) -> String {
        try guarded { () throws(BookError) in try source.documentText(path) }
    }

    /// Parses within the scope in force (an Open's), else within one of this book's own.
    private func guarded<T>(_ body: () throws(BookError) -> T) throws(BookError) -> T {
        try XMLParseScope.within(cancellation: cancellation, body)
    }

    /// Everything: every chapter's text and the cover. Throws `emptyBook` when no chapter has
    /// text of its own (every one would only speak its title).
    public func loadBook() throws(BookError) -> Book {
        var loaded: [Chapter] = []
        loaded.reserveCapacity(chapters.count)
        for entry in chapters {
            loaded.append(try loadChapter(entry.index))
        }
        guard loaded.contains(where: { !$0.sourceMap.isEmpty }) else { throw .emptyBook(file: sourceURL) }
        var allWarnings = warnings
        var seen = Set(allWarnings)
        for warning in loaded.flatMap(\.warnings) where seen.insert(warning).inserted { allWarnings.append(warning) }
        return Book(identity: identity, title: title, authors: authors, language: language, cover: try loadCover(),
                    chapters: loaded, format: format, textEncoding: textEncoding, sourceURL: sourceURL,
                    warnings: allWarnings)
    }
}
