/// A chapter as the read-along page shows it: the book's own markup, cleaned, with the speakable
/// text inside spans that say where they stand in `Chapter.text`.
///
/// Every stretch of the chapter's speakable text is inside `<span data-o="N">…</span>` whose
/// text content is exactly the Unicode scalars `N..<N+k` of `Chapter.text` (k its scalar
/// count), so the word the daemon reports as `SpeakingRange(start, length)` is found by offset,
/// never by searching the text:
///
///     let markup = try outline.chapterMarkup(at: 2)     // The Waste Land
///     // <section><section><h2><span data-o="0">II. A GAME OF CHESS</span></h2><div><div>
///     // <span data-o="22">The Chair she sat in, like a burnished throne,</span><sup class="noteref">*</sup>…
///
/// Shown but never spoken: note references (`<sup class="noteref">3</sup>`), notes
/// (`<aside class="note">`), images (`<img src="resource/ID" alt="…"/>`, the bytes from
/// `BookOutline.resource(id:)`), and the spaces and line breaks between runs. Not shown: the
/// brackets Lector drops around addresses.
public struct ChapterMarkup: Sendable, Equatable {
    public var index: Int
    /// A sanitised XHTML fragment (block elements, no html/head/body), well-formed, using only
    /// allowlisted elements and attributes (no ids, links, scripts, styles or external URLs).
    public var html: String
    /// Manifest ids of the images the fragment shows, in order, each once.
    public var resources: [String]

    public init(index: Int, html: String, resources: [String]) {
        self.index = index
        self.html = html
        self.resources = resources
    }
}
