import Foundation

/// Where a listener stopped in a book: the chapter and the word (a Unicode scalar offset into
/// the chapter's text), keyed by the book's identity so a moved or copied file resumes too.
///
/// It also carries what the listener chose for this book (per-book memory, issue 13): the
/// speech rate and the voice, nil while they follow the configuration's defaults, and when the
/// book was last heard (the library's "last listened", and what rewind-on-resume measures).
/// Files written before these fields existed decode with them nil.
///
/// ```swift
/// Bookmark(bookIdentity: "urn:isbn:9780000000000", path: "/books/a.epub", chapter: 3, offset: 1200,
///          rate: 1.4, voice: nil, listenedAt: Date())   // 1.4× for this book, the default voice
/// ```
public struct Bookmark: Codable, Equatable, Sendable {
    public var bookIdentity: String
    public var path: String
    public var chapter: Int
    public var offset: Int
    public var savedAt: Date
    /// The rate chosen while reading this book (MPRIS Rate, `lector rate`, `read --rate`).
    public var rate: Double?
    /// The espeak-ng voice chosen while reading this book (Narrator1.Voice, `read --voice`).
    public var voice: String?
    /// When narration of this book was last heard (saved while playing, or at the pause).
    public var listenedAt: Date?
    /// MPRIS Position at that word (normal-rate microseconds into the chapter, where Stop leaves
    /// it): restored with the word, so Position after a restart is where it stood, not an
    /// estimate from the offset (which was 1.4-2.2 s off). Absent in bookmarks of older versions.
    public var position: Int64?

    public init(bookIdentity: String, path: String, chapter: Int, offset: Int, savedAt: Date = Date(),
                rate: Double? = nil, voice: String? = nil, listenedAt: Date? = nil, position: Int64? = nil) {
        self.bookIdentity = bookIdentity
        self.path = path
        self.chapter = chapter
        self.offset = offset
        self.savedAt = savedAt
        self.rate = rate
        self.voice = voice
        self.listenedAt = listenedAt
        self.position = position
    }
}
