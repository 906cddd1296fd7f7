import Foundation

/// Tells a book's own table-of-contents page (the one a reader turns to, not the navigation
/// document): a page whose text is mostly links to the book's other documents. A narrator does
/// not read it as chapter 1: the chapter list is the table of contents already.
///
///     <h1>Contents</h1><p><a href="c1.xhtml">1. The Return</a></p><p><a href="c2.xhtml">2. …</a></p>…
///     // 3 or more links, and at least 60% of its text inside them: a contents page
enum ContentsPage {
    static let minimumLinks = 3
    static let minimumLinkedShare = 0.6
    /// Larger documents are not looked at when a book is opened (a contents page is small).
    static let maximumSize: UInt64 = 128 << 10
    /// At most how many documents from the start of the reading order are looked at (the front
    /// matter ends at the first large one without links).
    static let leadingDocuments = 4
    /// How much of each is inflated to count its links before it is parsed.
    static let lookedAtBytes = 8 << 10

    static func isContentsPage(_ document: DocumentText) -> Bool {
        guard document.links.count >= minimumLinks, !document.isEmpty else { return false }
        return Double(document.links.scalars) >= minimumLinkedShare * Double(document.count)
    }

    /// A cheap look at the first raw bytes before parsing: a page with fewer than `minimumLinks`
    /// `href`s there is no contents page.
    static func mayBeContentsPage(_ data: Data) -> Bool {
        var found = 0
        let needle = Array("href".utf8)
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            guard bytes.count >= needle.count else { return }
            var index = 0
            while index <= bytes.count - needle.count, found < minimumLinks {
                if bytes[index] == needle[0], bytes[index + 1] == needle[1], bytes[index + 2] == needle[2],
                   bytes[index + 3] == needle[3] {
                    found += 1
                    index += needle.count
                } else {
                    index += 1
                }
            }
        }
        return found >= minimumLinks
    }
}
