/// Where a chapter begins: a document in reading order and, optionally, an element id in it.
/// The chapter runs until the next chapter's start.
///
///     ChapterStart(spineIndex: 0, fragment: "ch2")   // "II. A GAME OF CHESS" in wasteland-content.xhtml
struct ChapterStart: Sendable, Hashable {
    /// Index into the reading order (linear spine documents, navigation document excluded).
    var spineIndex: Int
    var fragment: String?

    static let beginning = ChapterStart(spineIndex: 0, fragment: nil)
}
