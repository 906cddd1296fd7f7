/// Where a `BookOutline` gets chapter text, cover and document text on demand: an EPUB archive
/// read lazily, or a plain-text file already split.
protocol ChapterSource: Sendable {
    func chapter(at index: Int, title: String) throws(BookError) -> Chapter
    /// The chapter's read-along markup, its runs indexing `chapter(at:title:)`'s text.
    func chapterMarkup(at index: Int, title: String) throws(BookError) -> ChapterMarkup
    /// An image the read-along page shows, by manifest id.
    func resource(id: String) throws(BookError) -> BookResource
    func documentText(_ path: String) throws(BookError) -> String
    func cover() throws(BookError) -> BookCover?
    var hasCover: Bool { get }
}
