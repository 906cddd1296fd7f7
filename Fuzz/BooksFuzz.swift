// libFuzzer target over LectorBooks: the book opener and chapter text extraction.
// Built and run by scripts/fuzz-books (docs/fuzzing.md); not part of the package build.
import Foundation
@testable import LectorBooks
@preconcurrency import ZIPFoundation

/// The first byte picks the path; the rest is the input:
///   0  a content document, straight into the extractor (strict, then HTML when not well-formed)
///   1  the whole file, opened as an .epub
///   2  the content document of an otherwise valid EPUB, opened and read
///   3  the package document (OPF) of an EPUB with one chapter
///   4  the navigation document of an EPUB with one chapter
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBooks(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let data = Data(UnsafeBufferPointer(start: start + 1, count: count - 1))
    let url = URL(fileURLWithPath: "/tmp/lector-fuzz-\(getpid()).epub")
    switch start.pointee % 5 {
    case 0:
        _ = try? XHTMLTextExtractor.extract(data, path: "c1.xhtml", file: url, options: .init())
        _ = try? XHTMLTextExtractor.extract(data, path: "c1.xhtml", file: url,
                                            options: .init(stopAfterFirstHeading: true))
        if let text = try? ContentDocumentDecoder.decode(data) {
            _ = try? XHTMLTextExtractor.extractLeniently(text, path: "c1.xhtml", options: .init())
            _ = try? MarkupElement.parse(data, path: "cover.xhtml", file: url, lenient: true)
        }
        return 0
    case 1:
        try? data.write(to: url)
    case 2:
        write([("OEBPS/c1.xhtml", data)], to: url)
    case 3:
        write([("OEBPS/content.opf", data), ("OEBPS/c1.xhtml", Data(chapter.utf8)), ("OEBPS/nav.xhtml", Data(nav.utf8))],
              to: url, opf: false)
    default:
        write([("OEBPS/nav.xhtml", data)], to: url)
    }
    readEverything(url)
    return 0
}

private func readEverything(_ url: URL) {
    guard let outline = try? BookReader.open(url) else { return }
    for index in outline.chapters.indices.prefix(50) { _ = try? outline.loadChapter(index) }
    _ = try? outline.loadCover()
}

private let chapter = #"<html xmlns="http://www.w3.org/1999/xhtml"><body><h1 id="a">One</h1><p>Text.</p></body></html>"#
private let nav = #"<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><body><nav epub:type="toc"><ol><li><a href="c1.xhtml#a">One</a></li></ol></nav></body></html>"#
private let opf = """
    <?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="u">
    <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="u">x</dc:identifier><dc:title>T</dc:title></metadata>
    <manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/></manifest>
    <spine><itemref idref="c1"/></spine></package>
    """
private let container = """
    <?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
    <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>
    """

/// An EPUB whose `replaced` entries are the fuzzer's, the others the defaults above.
private func write(_ replaced: [(String, Data)], to url: URL, opf includeOPF: Bool = true) {
    var entries: [(String, Data)] = [("mimetype", Data("application/epub+zip".utf8)),
                                     ("META-INF/container.xml", Data(container.utf8))]
    if includeOPF { entries.append(("OEBPS/content.opf", Data(opf.utf8))) }
    for name in ["OEBPS/c1.xhtml", "OEBPS/nav.xhtml"] where !replaced.contains(where: { $0.0 == name }) {
        entries.append((name, Data((name.hasSuffix("nav.xhtml") ? nav : chapter).utf8)))
    }
    entries += replaced
    guard let archive = try? Archive(data: Data(), accessMode: .create) else { return }
    for (path, data) in entries {
        try? archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count),
                              compressionMethod: .none) { position, size in
            data.subdata(in: Int(position)..<(Int(position) + size))
        }
    }
    try? archive.data?.write(to: url)
}
