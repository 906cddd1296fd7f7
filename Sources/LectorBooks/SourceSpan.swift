/// Where a stretch of a chapter's text came from.
///
/// Offsets count Unicode scalars, the unit a speech engine's word callbacks report, so a word
/// boundary maps straight to a span. `documentOffset` is an offset into the document's whole
/// speakable text (`BookOutline.documentText(_:)`), which is what makes the map checkable:
///
///     let doc = try outline.documentText(span.documentPath)
///     // chapter.text[span.textRange] == doc[span.documentOffset ..< span.documentOffset + span.length]
///
/// `elementPath` and `anchor` let a reader UI find the element in the XHTML to highlight.
public struct SourceSpan: Sendable, Equatable {
    /// Unicode scalar offsets into `Chapter.text`.
    public var textRange: Range<Int>
    /// The content document's path inside the EPUB archive (`EPUB/s04.xhtml`), or the file name
    /// of a plain-text book. A note read out of its place comes from the text of the notes taken
    /// out of its document, `EPUB/s04.xhtml#notes`, which `documentText(_:)` also gives.
    public var documentPath: String
    /// The nearest element `id` at or before the span's start, e.g. `ch1`; nil if none precedes it.
    public var anchor: String?
    /// The innermost block element holding the span, XPath-like with 1-based indexes among
    /// same-named siblings: `/html/body/section[2]/div[1]/div[3]`. Nil for plain text, and for an
    /// element nested so deep its path would be over 512 bytes (only hostile books do that).
    public var elementPath: String?
    /// Unicode scalar offset of the span's first character in the document's speakable text.
    public var documentOffset: Int
    /// The 1-based line of the source file where the span's text starts.
    public var sourceLine: Int

    public var length: Int { textRange.count }

    public init(textRange: Range<Int>, documentPath: String, anchor: String?, elementPath: String?,
                documentOffset: Int, sourceLine: Int) {
        self.textRange = textRange
        self.documentPath = documentPath
        self.anchor = anchor
        self.elementPath = elementPath
        self.documentOffset = documentOffset
        self.sourceLine = sourceLine
    }
}
