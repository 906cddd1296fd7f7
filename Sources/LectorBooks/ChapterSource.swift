/// Where a `BookOutline` gets chapter text, cover and document text on demand: an EPUB archive
/// read lazily, or a plain-text file already split.
protocol ChapterSource: Sendable {
    func chapter(at index: Int, title: String) throws(BookError) -> Chapter
    func documentText(_ path: String) throws(BookError) -> String
    func cover() throws(BookError) -> BookCover?
    var hasCover: Bool { get }
}
