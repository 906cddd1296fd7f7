/// A chapter as the outline lists it, before its text is loaded: enough for an MPRIS track list.
///
///     outline.chapters.map(\.title)   // ["The Waste Land", "I. THE BURIAL OF THE DEAD", …]
public struct ChapterEntry: Sendable, Equatable {
    /// 0-based; the same index `BookOutline.loadChapter(_:)` takes and `Chapter.index` carries.
    public var index: Int
    public var title: String
    /// Nesting in the table of contents, 0 for top level (a story inside a section is 1 or deeper).
    public var depth: Int
    /// The length of the chapter's text in Unicode scalars, when it is known without reading the
    /// chapter (a plain-text book counts every chapter when it is opened); nil otherwise.
    public var scalarCount: Int?

    public init(index: Int, title: String, depth: Int, scalarCount: Int? = nil) {
        self.index = index
        self.title = title
        self.depth = depth
        self.scalarCount = scalarCount
    }
}
