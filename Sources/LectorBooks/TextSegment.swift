/// A stretch of a document's speakable text produced by one block (a paragraph, a heading, a
/// line of verse, one line of a `<pre>`), with where it came from. Chapters clip these into
/// their `SourceSpan`s.
struct TextSegment: Sendable, Equatable {
    /// Unicode scalar offsets in `DocumentText.scalars`.
    var range: Range<Int>
    var elementPath: String?
    var anchor: String?
    var line: Int
}
