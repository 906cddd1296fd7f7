import Foundation
import LectorBooks
import LectorTestKit

/// A small EPUB 3 written at run time around markup patterns real books use: each document's
/// body is given, the nav lists `toc` (href, title) or, when that is empty, every document by
/// its id. For tests that check how one pattern is read.
///
///     let outline = try PatternBook(directory).open([("c1", "<p>Hello</p>")])
struct PatternBook {
    let directory: TemporaryDirectory
    var language = "en"
    var extraManifest = ""
    var entries: [(path: String, data: Data)] = []

    init(_ directory: TemporaryDirectory) {
        self.directory = directory
    }

    func open(_ documents: [(id: String, body: String)], toc: [(href: String, title: String)]? = nil,
              options: BookReadingOptions = .default, name: String = "pattern.epub") throws -> BookOutline {
        let items = (toc ?? documents.map { ($0.id + ".xhtml", $0.id) })
            .map { "<li><a href=\"\($0.href)\">\($0.title)</a></li>" }.joined()
        var writer = EPUBWriter.standard(opf: EPUBFixture.opf3(
            documents: documents.map { ($0.id, $0.id + ".xhtml") },
            extraManifest: #"<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>"#
                + extraManifest).replacingOccurrences(of: "<dc:language>en</dc:language>",
                                                      with: "<dc:language>\(language)</dc:language>"))
            .adding("OEBPS/nav.xhtml", EPUBFixture.xhtml(body: "<nav epub:type=\"toc\"><ol>\(items)</ol></nav>"))
        for document in documents {
            writer = writer.adding("OEBPS/\(document.id).xhtml", EPUBFixture.xhtml(body: document.body))
        }
        for entry in entries { writer = writer.adding(entry.path, entry.data) }
        let url = directory.url.appendingPathComponent(name)
        try writer.write(to: url)
        return try BookReader.open(url, options: options)
    }

    /// The text of chapter 0 of a book of one document.
    func text(_ body: String, options: BookReadingOptions = .default) throws -> String {
        try open([("c1", body)], options: options).loadChapter(0).text
    }
}
