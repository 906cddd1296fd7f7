import Foundation

/// Reads a book's table of contents into flat, depth-first `TOCEntry`s: from the EPUB 3
/// navigation document's `<nav epub:type="toc">`, or from an NCX `navMap`.
///
/// Entries without a link (a `<span>` grouping heading, like an author's name over their
/// stories) are left out but their children are kept; links out of the book are ignored; a link
/// that leaves the archive's root is an error.
///
///     <ol><li><span>Abram S. Isaacs</span>
///             <ol><li><a href="s04.xhtml#pgepubid00503">190 A FOUR-LEAVED CLOVER</a></li></ol></li></ol>
///     // [TOCEntry(title: "190 A FOUR-LEAVED CLOVER", path: "EPUB/s04.xhtml", fragment: "pgepubid00503", depth: 1)]
enum TableOfContentsParser {
    static func navigationEntries(_ root: MarkupElement, path: String, file: URL) throws(BookError) -> [TOCEntry] {
        let navs = root.descendants("nav")
        guard let toc = navs.first(where: { $0.semanticTypes.contains("toc") }) else { return [] }
        var entries: [TOCEntry] = []
        for list in toc.descendants("ol").prefix(1) {
            try collectListItems(list, depth: 0, path: path, file: file, into: &entries)
        }
        return entries
    }

    private static func collectListItems(_ list: MarkupElement, depth: Int, path: String, file: URL,
                                         into entries: inout [TOCEntry]) throws(BookError) {
        for item in list.children("li") {
            var childDepth = depth
            if let link = item.firstChild("a"), let href = link.attribute("href"),
               let entry = try entry(title: link.textContent, href: href, depth: depth, base: path, file: file) {
                entries.append(entry)
                childDepth = depth + 1
            }
            for nested in item.children("ol") {
                try collectListItems(nested, depth: childDepth, path: path, file: file, into: &entries)
            }
        }
    }

    static func ncxEntries(_ root: MarkupElement, path: String, file: URL) throws(BookError) -> [TOCEntry] {
        var entries: [TOCEntry] = []
        for point in root.firstChild("navMap")?.children("navPoint") ?? [] {
            try collectNavPoint(point, depth: 0, path: path, file: file, into: &entries)
        }
        return entries
    }

    private static func collectNavPoint(_ point: MarkupElement, depth: Int, path: String, file: URL,
                                        into entries: inout [TOCEntry]) throws(BookError) {
        var childDepth = depth
        let title = point.firstChild("navLabel")?.firstChild("text")?.textContent ?? ""
        if let src = point.firstChild("content")?.attribute("src"),
           let entry = try entry(title: title, href: src, depth: depth, base: path, file: file) {
            entries.append(entry)
            childDepth = depth + 1
        }
        for child in point.children("navPoint") {
            try collectNavPoint(child, depth: childDepth, path: path, file: file, into: &entries)
        }
    }

    private static func entry(title: String, href: String, depth: Int, base: String,
                              file: URL) throws(BookError) -> TOCEntry? {
        switch ArchivePath.resolve(href, from: base) {
        case .inside(let target, let fragment):
            return TOCEntry(title: title, path: target, fragment: fragment, depth: depth, href: href)
        case .external:
            return nil
        case .escapes:
            throw .pathEscapesArchive(file: file, path: href)
        }
    }
}
