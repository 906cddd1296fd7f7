// Seconds to open each hostile book of issue 11 and read all its chapters, with the public API
// only (so the same file times older code too). Built by scripts/time-hostile-books.
import Foundation
import LectorBooks
@preconcurrency import ZIPFoundation

let container = """
    <?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
    <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>
    """

func opf(title: String = "T", creator: String = "A", documents: [String], nav: Bool) -> String {
    """
    <?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="u">
    <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="u">x</dc:identifier>
    <dc:title>\(title)</dc:title><dc:creator>\(creator)</dc:creator></metadata><manifest>
    \(documents.map { "<item id=\"\($0)\" href=\"\($0).xhtml\" media-type=\"application/xhtml+xml\"/>" }.joined())
    \(nav ? "<item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" properties=\"nav\"/>" : "")
    </manifest><spine>\(documents.map { "<itemref idref=\"\($0)\"/>" }.joined())</spine></package>
    """
}

func xhtml(_ body: String) -> String {
    "<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\"><head><title>T</title></head><body>\(body)</body></html>"
}

/// Stored entries: deflated, these would be refused as ZIP bombs before any parsing.
func book(_ name: String, _ entries: [(String, String)]) throws -> URL {
    let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("hostile-\(name).epub")
    let archive = try Archive(data: Data(), accessMode: .create)
    for (path, text) in [("mimetype", "application/epub+zip"), ("META-INF/container.xml", container)] + entries {
        let data = Data(text.utf8)
        try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .none) {
            data.subdata(in: Int($0)..<(Int($0) + $1))
        }
    }
    try archive.data!.write(to: url)
    return url
}

let depth = 300_000
let long = "Long " + String(repeating: "word ", count: 400_000)
let chapter = xhtml("<h1 id=\"a\">Start</h1><p>Text.</p>")
let deepNav = "<nav epub:type=\"toc\">" + String(repeating: "<ol><li><a href=\"c1.xhtml#a\">Entry</a>", count: 50_000)
    + String(repeating: "</li></ol>", count: 50_000) + "</nav>"
// Issue 21's entity forms (the test kit's HostileEntityBook has them all; this file links LectorBooks alone).
let laughs = "<!ENTITY lol0 \"lol\">" + (1...9).map { "<!ENTITY lol\($0) \"" + String(repeating: "&lol\($0 - 1);", count: 10) + "\">" }.joined()
let bigEntity = "<!ENTITY big \"" + String(repeating: "x", count: 100_000) + "\">"
func withSubset(_ document: String, root: String, _ subset: String) -> String {
    document.replacingOccurrences(of: "?>", with: "?><!DOCTYPE \(root) [\(subset)]>", options: [], range: document.range(of: "?>"))
}
let books: [(String, () throws -> URL)] = [
    ("entities: billion laughs in the OPF", {
        try book("laughs-opf", [("OEBPS/content.opf", withSubset(opf(title: "&lol9;", documents: ["c1"], nav: false),
                                                                  root: "package", laughs)), ("OEBPS/c1.xhtml", chapter)])
    }),
    ("entities: billion laughs in the nav", {
        try book("laughs-nav", [("OEBPS/content.opf", opf(documents: ["c1"], nav: true)), ("OEBPS/c1.xhtml", chapter),
                                ("OEBPS/nav.xhtml", withSubset(xhtml("<nav epub:type=\"toc\"><ol><li><a href=\"c1.xhtml\">&lol9;</a></li></ol></nav>"),
                                                               root: "html", laughs))])
    }),
    ("entities: billion laughs in a chapter", {
        try book("laughs-chapter", [("OEBPS/content.opf", opf(documents: ["c1"], nav: false)),
                                    ("OEBPS/c1.xhtml", withSubset(xhtml("<p>&lol9;</p>"), root: "html", laughs))])
    }),
    ("entities: 100 kB entity x 5,000 in a chapter", {
        try book("quadratic", [("OEBPS/content.opf", opf(documents: ["c1"], nav: false)),
                               ("OEBPS/c1.xhtml", withSubset(xhtml("<p>" + String(repeating: "&big;", count: 5_000) + "</p>"),
                                                             root: "html", bigEntity))])
    }),
    ("entities: a loop in the OPF", {
        try book("loop", [("OEBPS/content.opf", withSubset(opf(title: "&a;", documents: ["c1"], nav: false), root: "package",
                                                           "<!ENTITY a \"one &b;\"><!ENTITY b \"two &a;\">")),
                          ("OEBPS/c1.xhtml", chapter)])
    }),
    ("300,000 nested <div> (well-formed)", {
        try book("deep", [("OEBPS/content.opf", opf(documents: ["c1"], nav: false)), ("OEBPS/c1.xhtml", xhtml(
            "<p>Before.</p>" + String(repeating: "<div>", count: depth) + "<p>Deep.</p>"
                + String(repeating: "</div>", count: depth)))])
    }),
    ("300,000 unclosed <div>/<span>", {
        try book("soup", [("OEBPS/content.opf", opf(documents: ["c1"], nav: false)), ("OEBPS/c1.xhtml", xhtml(
            "<p>Before.</p>" + String(repeating: "<div><span>", count: depth / 2) + "Deep."))])
    }),
    ("150,000 unclosed <div><span> + 150,000 stray </b>", {
        try book("stray", [("OEBPS/content.opf", opf(documents: ["c1"], nav: false)), ("OEBPS/c1.xhtml", xhtml(
            "<p>Before.</p>" + String(repeating: "<div><span>", count: depth / 2) + "Deep."
                + String(repeating: "</b>", count: depth / 2)))])
    }),
    ("200,000 paragraphs 250 <div>s deep", {
        try book("deep-paragraphs", [("OEBPS/content.opf", opf(documents: ["c1"], nav: false)), ("OEBPS/c1.xhtml", xhtml(
            String(repeating: "<div>", count: 250) + String(repeating: "<p>x</p>", count: 200_000)
                + String(repeating: "</div>", count: 250)))])
    }),
    ("2 MB title + 2 MB creator", {
        try book("title", [("OEBPS/content.opf", opf(title: long, creator: long, documents: ["c1"], nav: false)),
                           ("OEBPS/c1.xhtml", chapter)])
    }),
    ("2 MB of \"&amp;lt;\" in a paragraph", {
        try book("escaped", [("OEBPS/content.opf", opf(documents: ["c1"], nav: false)), ("OEBPS/c1.xhtml", xhtml(
            "<p>" + String(repeating: "&amp;lt;", count: 250_000) + "</p>"))])
    }),
    ("2 MB nav label", {
        try book("label", [("OEBPS/content.opf", opf(documents: ["c1"], nav: true)), ("OEBPS/c1.xhtml", chapter),
                           ("OEBPS/nav.xhtml", xhtml("<nav epub:type=\"toc\"><ol><li><a href=\"c1.xhtml\">\(long)</a></li></ol></nav>"))])
    }),
    ("2 MB nav label, a reference every 6 bytes", {
        try book("references", [("OEBPS/content.opf", opf(documents: ["c1"], nav: true)), ("OEBPS/c1.xhtml", chapter),
                                ("OEBPS/nav.xhtml", xhtml("<nav epub:type=\"toc\"><ol><li><a href=\"c1.xhtml\">"
                                    + String(repeating: "a&amp;b ", count: 250_000) + "</a></li></ol></nav>"))])
    }),
    ("2 MB chapter <title>, a reference every 6 bytes", {
        try book("chapter-title", [("OEBPS/content.opf", opf(documents: ["c1"], nav: false)), ("OEBPS/c1.xhtml",
            "<html><head><title>" + String(repeating: "a&amp;b ", count: 250_000) + "</title></head><body><p>Text.</p></body></html>")])
    }),
    ("50,000 nested nav lists", {
        try book("nav", [("OEBPS/content.opf", opf(documents: ["c1"], nav: true)), ("OEBPS/c1.xhtml", chapter),
                         ("OEBPS/nav.xhtml", xhtml(deepNav))])
    }),
    ("100,000 attributes on one element", {
        try book("attributes", [("OEBPS/content.opf", opf(documents: ["c1"], nav: false)), ("OEBPS/c1.xhtml", xhtml(
            "<p " + (0..<100_000).map { "a\($0)=\"1\"" }.joined(separator: " ") + ">Crowded.</p>"))])
    }),
    ("100,000 nav entries into one empty page", {
        try book("entries-empty", [("OEBPS/content.opf", opf(documents: ["c1", "c2"], nav: true)),
                                   ("OEBPS/c1.xhtml", xhtml("<div id=\"a\"></div>")), ("OEBPS/c2.xhtml", chapter),
                                   ("OEBPS/nav.xhtml", xhtml("<nav epub:type=\"toc\"><ol>"
                                       + (0..<100_000).map { "<li><a href=\"c1.xhtml#a\($0)\">E\($0)</a></li>" }.joined()
                                       + "<li><a href=\"c2.xhtml\">Last</a></li></ol></nav>"))])
    }),
    ("20,000 nav entries into 20,000 anchors of one page", {
        try book("entries-anchors", [("OEBPS/content.opf", opf(documents: ["c1"], nav: true)),
                                     ("OEBPS/c1.xhtml", xhtml((0..<20_000).map { "<p id=\"a\($0)\">Part \($0).</p>" }.joined())),
                                     ("OEBPS/nav.xhtml", xhtml("<nav epub:type=\"toc\"><ol>"
                                         + (0..<20_000).map { "<li><a href=\"c1.xhtml#a\($0)\">E\($0)</a></li>" }.joined()
                                         + "</ol></nav>"))])
    }),
    ("spine of 20,000 documents", {
        let ids = (0..<20_000).map { "d\($0)" }
        return try book("spine", [("OEBPS/content.opf", opf(documents: ids, nav: false))]
            + ids.map { ("OEBPS/\($0).xhtml", "<html><body><h1>\($0)</h1><p>Text.</p></body></html>") })
    }),
]
let only = CommandLine.arguments.dropFirst().first
for (name, make) in books where only == nil || name.hasPrefix(only!) {
    let url = try make()
    let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    let start = ContinuousClock.now
    var outcome: String
    var opened = Duration.zero
    do {
        let outline = try BookReader.open(url)
        opened = ContinuousClock.now - start
        var characters = 0
        for index in outline.chapters.indices { characters += try outline.loadChapter(index).text.count }
        outcome = "opened, \(outline.chapters.count) chapters, \(characters) characters"
    } catch {
        outcome = "refused: \(String("\(error)".split(separator: ":").dropFirst().joined(separator: ":").prefix(90)))"
    }
    let seconds = ContinuousClock.now - start
    func s(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
    // Open: the outline (what the daemon's Open costs); all: open and every chapter loaded.
    print(String(format: "%-52@ %5.1f MB  open %6.2f s  all %6.2f s  %@", name as NSString, Double(size) / 1e6,
                 s(opened), s(seconds), outcome))
    try? FileManager.default.removeItem(at: url)
}
