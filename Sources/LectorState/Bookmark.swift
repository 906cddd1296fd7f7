import Foundation

/// Where a listener stopped in a book: the chapter and the word (a Unicode scalar offset into
/// the chapter's text), keyed by the book's identity so a moved or copied file resumes too.
public struct Bookmark: Codable, Equatable, Sendable {
    public var bookIdentity: String
    public var path: String
    public var chapter: Int
    public var offset: Int
    public var savedAt: Date

    public init(bookIdentity: String, path: String, chapter: Int, offset: Int, savedAt: Date = Date()) {
        self.bookIdentity = bookIdentity
        self.path = path
        self.chapter = chapter
        self.offset = offset
        self.savedAt = savedAt
    }
}
