import Foundation
@preconcurrency import ZIPFoundation

/// Writes EPUB files (or any ZIP) at run time with ZIPFoundation's in-memory `Archive`, so no
/// binary fixtures are committed: `mimetype` first and stored, as EPUB requires, then the
/// container and whatever documents the caller adds (deflated unless told otherwise).
///
///     let url = try EPUBWriter.standard(opf: opf)
///         .adding("OEBPS/chapter1.xhtml", xhtml)
///         .write(to: directory.appendingPathComponent("book.epub"))
public struct EPUBWriter: Sendable {
    public struct Entry: Sendable {
        public var path: String
        public var data: Data
        public var compressed: Bool
    }

    public private(set) var entries: [Entry] = []

    /// An empty archive (no mimetype, no container): for deliberately broken books.
    public init() {}

    /// A well-formed EPUB: `mimetype` first and stored, then the container pointing at `opfPath`
    /// and the package document itself.
    public static func standard(opfPath: String = "OEBPS/content.opf", opf: String) -> EPUBWriter {
        EPUBWriter()
            .adding("mimetype", "application/epub+zip", compressed: false)
            .adding("META-INF/container.xml", container(opf: opfPath))
            .adding(opfPath, opf)
    }

    /// A book of one chapter whose `<body>` is `body`, stored rather than deflated: a chapter
    /// made slow to parse by repetition (many elements, deep nesting) would otherwise be refused
    /// as a ZIP bomb before any parsing. For tests that need a parse still running when they act.
    ///
    ///     try EPUBWriter.slowToParse(identifier: "slow", body: String(repeating: "<div><span>", count: 150_000))
    ///         .write(to: directory.appendingPathComponent("slow.epub"))
    public static func slowToParse(identifier: String, body: String) -> EPUBWriter {
        let opf = #"<?xml version="1.0" encoding="UTF-8"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">"#
            + #"<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">\#(identifier)</dc:identifier>"#
            + #"<dc:title>Slow</dc:title><dc:language>en</dc:language></metadata><manifest>"#
            + #"<item id="c" href="c.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c"/></spine></package>"#
        let chapter = #"<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>S</title></head>"#
            + "<body>\(body)</body></html>"
        return standard(opf: opf).adding("OEBPS/c.xhtml", chapter, compressed: false)
    }

    public func adding(_ path: String, _ text: String, compressed: Bool = true) -> EPUBWriter {
        adding(path, Data(text.utf8), compressed: compressed)
    }

    public func adding(_ path: String, _ data: Data, compressed: Bool = true) -> EPUBWriter {
        var copy = self
        copy.entries.append(Entry(path: path, data: data, compressed: compressed))
        return copy
    }

    /// The ZIP file's bytes, entries in the order they were added.
    public func zipData() throws -> Data {
        let archive = try Archive(data: Data(), accessMode: .create)
        for entry in entries {
            try archive.addEntry(with: entry.path, type: .file, uncompressedSize: Int64(entry.data.count),
                                 compressionMethod: entry.compressed ? .deflate : .none) { position, size in
                entry.data.subdata(in: Int(position)..<(Int(position) + size))
            }
        }
        guard let data = archive.data else { throw TestKitError.failed("ZIPFoundation returned no archive data") }
        return data
    }

    /// Writes the archive to `url`; returns its size in bytes.
    @discardableResult
    public func write(to url: URL) throws -> Int {
        let data = try zipData()
        try data.write(to: url)
        return data.count
    }

    /// A book of `count` chapters, one document each ("Chapter N" and `paragraphs(N)`'s XHTML),
    /// with no table of contents: large books for tests of what happens while chapters are still
    /// being read in the background.
    ///
    ///     try EPUBWriter.chapters(300, identifier: "urn:uuid:large") { "<p>Chapter \($0)'s text.</p>" }
    ///         .write(to: directory.appendingPathComponent("large.epub"))
    public static func chapters(_ count: Int, identifier: String, title: String = "Chapters", language: String = "en",
                                paragraphs: (Int) -> String) -> EPUBWriter {
        let items = (0..<count).map { #"<item id="c\#($0)" href="c\#($0).xhtml" media-type="application/xhtml+xml"/>"# }.joined()
        let spine = (0..<count).map { #"<itemref idref="c\#($0)"/>"# }.joined()
        let opf = #"<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">"#
            + #"<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">\#(identifier)</dc:identifier>"#
            + #"<dc:title>\#(title)</dc:title><dc:language>\#(language)</dc:language></metadata>"#
            + "<manifest>\(items)</manifest><spine>\(spine)</spine></package>"
        var writer = standard(opfPath: "book.opf", opf: opf)
        for index in 0..<count {
            writer = writer.adding("c\(index).xhtml",
                                   #"<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>C\#(index)</title></head>"#
                                   + "<body><h1>Chapter \(index + 1)</h1>\(paragraphs(index + 1))</body></html>")
        }
        return writer
    }

    /// `META-INF/container.xml` naming the package document at `opf`.
    public static func container(opf: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
          <rootfiles>
            <rootfile full-path="\(opf)" media-type="application/oebps-package+xml"/>
          </rootfiles>
        </container>

        """
    }
}
