/// One entry of a book's table of contents (EPUB 3 nav `<li><a>` or NCX `<navPoint>`), flattened
/// depth-first so nested entries follow their parent.
///
///     <li><a href="s04.xhtml#pgepubid00503">190 A FOUR-LEAVED CLOVER</a><ol>…   in EPUB/nav.xhtml
///     // TOCEntry(title: "190 A FOUR-LEAVED CLOVER", path: "EPUB/s04.xhtml", fragment: "pgepubid00503", depth: 2,
///     //          href: "s04.xhtml#pgepubid00503")
struct TOCEntry: Sendable, Equatable {
    var title: String
    /// The target resolved against the table of contents' own document, as the spec says.
    var path: String
    var fragment: String?
    /// 0 for top-level entries.
    var depth: Int
    /// The link as written, for `TOCLinkRepair` when `path` names nothing in the book.
    var href: String = ""
}
