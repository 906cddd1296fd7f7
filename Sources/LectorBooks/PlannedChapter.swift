/// A chapter of an EPUB as decided when the book is opened: its title and where it starts.
/// Its text is cut out only when the chapter is loaded.
struct PlannedChapter: Sendable, Equatable {
    var title: String
    var depth: Int
    var start: ChapterStart
}
