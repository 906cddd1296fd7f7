import Foundation
import LectorTestKit
@preconcurrency import ZIPFoundation

/// Builds small EPUB (or deliberately broken ZIP) files for tests, at run time, with
/// ZIPFoundation's in-memory `Archive`, so no binary fixtures are committed.
///
///     let url = try EPUBFixture()
///         .adding("META-INF/container.xml", EPUBFixture.container(opf: "OEBPS/content.opf"))
///         .adding("OEBPS/content.opf", opf)
///         .write(in: directory, name: "book.epub")
struct EPUBFixture {
    struct Entry {
        var path: String
        var data: Data
        var compressed: Bool
    }

    var entries: [Entry] = []

    /// A well-formed EPUB: mimetype first and stored, then the container pointing at `opf`.
    static func standard(opfPath: String = "OEBPS/content.opf", opf: String) -> EPUBFixture {
        EPUBFixture()
            .adding("mimetype", "application/epub+zip", compressed: false)
            .adding("META-INF/container.xml", container(opf: opfPath))
            .adding(opfPath, opf)
    }

    func adding(_ path: String, _ text: String, compressed: Bool = true) -> EPUBFixture {
        adding(path, Data(text.utf8), compressed: compressed)
    }

    func adding(_ path: String, _ data: Data, compressed: Bool = true) -> EPUBFixture {
        var copy = self
        copy.entries.append(Entry(path: path, data: data, compressed: compressed))
        return copy
    }

    func zipData() throws -> Data {
        let archive = try Archive(data: Data(), accessMode: .create)
        for entry in entries {
            try archive.addEntry(with: entry.path, type: .file, uncompressedSize: Int64(entry.data.count),
                                 compressionMethod: entry.compressed ? .deflate : .none) { position, size in
                entry.data.subdata(in: Int(position)..<(Int(position) + size))
            }
        }
        return archive.data ?? Data()
    }

    func write(in directory: URL, name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try zipData().write(to: url)
        return url
    }

    /// The container naming the package document: the test kit's, so both writers agree.
    static func container(opf: String) -> String { EPUBWriter.container(opf: opf) }

    /// An XHTML document with `body` as its body's content.
    static func xhtml(title: String = "Untitled", body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">
        <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
        <head><title>\(title)</title><style>p { color: red; } .STYLE-TEXT {}</style></head>
        <body>
        \(body)
        </body>
        </html>
        """
    }

    /// A minimal EPUB 3 package: `documents` are (id, href) spine items in order.
    static func opf3(identifier: String? = "urn:uuid:test-book", title: String = "Test Book",
                     documents: [(id: String, href: String)], extraManifest: String = "",
                     extraMetadata: String = "", spineAttributes: String = "", guide: String = "") -> String {
        let identifierElement = identifier.map { "<dc:identifier id=\"uid\">\($0)</dc:identifier>" } ?? ""
        let items = documents.map {
            "<item id=\"\($0.id)\" href=\"\($0.href)\" media-type=\"application/xhtml+xml\"/>"
        }.joined(separator: "\n    ")
        let itemrefs = documents.map { "<itemref idref=\"\($0.id)\"/>" }.joined(separator: "\n    ")
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
          <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
            \(identifierElement)
            <dc:title>\(title)</dc:title>
            <dc:language>en</dc:language>
            <meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>
            \(extraMetadata)
          </metadata>
          <manifest>
            \(items)
            \(extraManifest)
          </manifest>
          <spine \(spineAttributes)>
            \(itemrefs)
          </spine>
          \(guide)
        </package>
        """
    }

    /// Rewrites the uncompressed size that the local and central headers of `entryPath` declare,
    /// to make an entry whose headers lie about how much it inflates to.
    static func declaringUncompressedSize(_ size: UInt32, for entryPath: String, in zip: Data) -> Data {
        var bytes = [UInt8](zip)
        let name = Array(entryPath.utf8)
        func patch(signature: [UInt8], nameLengthAt: Int, nameAt: Int, sizeAt: Int) {
            var index = 0
            while index + nameAt + name.count <= bytes.count {
                if Array(bytes[index..<(index + 4)]) == signature {
                    let nameLength = Int(bytes[index + nameLengthAt]) | Int(bytes[index + nameLengthAt + 1]) << 8
                    if nameLength == name.count, Array(bytes[(index + nameAt)..<(index + nameAt + nameLength)]) == name {
                        for byte in 0..<4 { bytes[index + sizeAt + byte] = UInt8((size >> (8 * UInt32(byte))) & 0xFF) }
                    }
                }
                index += 1
            }
        }
        patch(signature: [0x50, 0x4B, 0x03, 0x04], nameLengthAt: 26, nameAt: 30, sizeAt: 22)
        patch(signature: [0x50, 0x4B, 0x01, 0x02], nameLengthAt: 28, nameAt: 46, sizeAt: 24)
        return Data(bytes)
    }

    /// The eight-byte PNG signature and an IHDR-looking tail: enough for magic-byte sniffing.
    static let pngBytes = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
    static let jpegBytes = Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46, 0x49, 0x46, 0, 1])
}

extension EPUBFixture {
    /// `fixture`'s ZIP with an extra deflated entry of `size` zero bytes at `path`: a ZIP bomb,
    /// tiny compressed. Built in 1 MiB chunks so the test never holds `size` bytes at once.
    static func bomb(path: String, size: Int64, into fixture: EPUBFixture) throws -> Data {
        let archive = try Archive(data: try fixture.zipData(), accessMode: .update)
        let zeros = Data(count: 1 << 20)
        try archive.addEntry(with: path, type: .file, uncompressedSize: size, compressionMethod: .deflate,
                             bufferSize: 1 << 20) { _, chunk in zeros.prefix(chunk) }
        return archive.data ?? Data()
    }
}
