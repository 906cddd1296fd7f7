import Foundation

/// A whole book, parsed: its metadata and every chapter's speakable text.
///
/// This is what a narrator plays: each `Chapter` becomes an MPRIS track, and `identity` keys the
/// bookmark so a book moved to another folder resumes where it stopped. Loading a whole book
/// parses every content document; the daemon should start from a `BookOutline` instead so the
/// first chapter plays before the rest is parsed.
///
///     let book = try Book.load(URL(fileURLWithPath: "/home/me/wasteland.epub"))
///     print(book.title, book.chapters.map(\.title))
///     // The Waste Land ["The Waste Land", "I. THE BURIAL OF THE DEAD", ...]
public struct Book: Sendable {
    /// A stable key for bookmarks: the package's `dc:identifier` (the one `unique-identifier`
    /// names) when there is one, otherwise `fnv1a64:` and a hash of the file's bytes, so a copy
    /// of the same file elsewhere has the same identity and the path never matters.
    public var identity: String
    /// The main title: EPUB 3's `dc:title` refined as `title-type` `main`, else the first
    /// `dc:title`; for plain text a leading Markdown title heading or the file name.
    public var title: String
    /// The authors in the order the package lists them (creators whose role is `aut`, or every
    /// creator when no roles are given).
    public var authors: [String]
    /// The BCP 47 `dc:language`, e.g. `en-US`; nil when the book does not say.
    public var language: String?
    public var cover: BookCover?
    public var chapters: [Chapter]
    public var format: BookFormat
    /// How a plain-text file was decoded (nil for EPUB, whose documents declare their own).
    public var textEncoding: TextEncoding?
    public var sourceURL: URL
    /// Everything forgiven while reading the book: the outline's warnings and every chapter's,
    /// each once.
    public var warnings: [String]

    public init(identity: String, title: String, authors: [String], language: String?, cover: BookCover?,
                chapters: [Chapter], format: BookFormat, textEncoding: TextEncoding?, sourceURL: URL,
                warnings: [String] = []) {
        self.identity = identity
        self.title = title
        self.authors = authors
        self.language = language
        self.cover = cover
        self.chapters = chapters
        self.format = format
        self.textEncoding = textEncoding
        self.sourceURL = sourceURL
        self.warnings = warnings
    }

    /// Opens `url` and parses everything: metadata, cover and every chapter's text.
    ///
    /// Throws `BookError.emptyBook` when no chapter has any text from the book's documents.
    public static func load(_ url: URL, limits: BookLimits = .default) throws(BookError) -> Book {
        try BookReader.open(url, limits: limits).loadBook()
    }
}
