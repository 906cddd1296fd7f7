import XCTest
@testable import LectorBooks

/// The lenient reading must say what the strict one says wherever a document is well-formed:
/// same text, anchors, headings and block segments (element paths included). Source lines may
/// differ: the two libxml2 parsers report lines at different points of a run of text. Otherwise
/// a document read strictly up to a chapter's anchor (a partial parse) and leniently as a whole (its error lies further on)
/// would disagree about where the chapters are.
///
/// Every content document of the real fixtures (and of the Debian live manual in all its
/// languages when it is installed, see `LiveManualTests`) is read both ways and compared.
final class LenientReadingEquivalenceTests: XCTestCase {
    struct Difference: CustomStringConvertible {
        var book: String
        var path: String
        var what: String
        var description: String { "\(book) \(path): \(what)" }
    }

    /// Compares the two readings of every XHTML document in `url` that parses strictly.
    func compare(_ url: URL) throws -> (documents: Int, differences: [Difference], lineMismatches: Int, segments: Int) {
        let archive = try EPUBArchive(file: url, limits: .default)
        let book = url.lastPathComponent
        var differences: [Difference] = []
        var documents = 0, lineMismatches = 0, segments = 0
        for path in try Self.contentDocuments(url) {
            let data = try archive.data(at: path)
            for options in Self.optionVariants(for: data) {
                guard let strict = try? XHTMLTextExtractor.extractStrictly(data, path: path, file: url, options: options)
                else { continue }
                documents += 1
                let lenient = try XHTMLTextExtractor.extractLeniently(try XCTUnwrap(try? ContentDocumentDecoder.decode(data)),
                                                                  path: path, options: options)
                func differ(_ what: String) { differences.append(Difference(book: book, path: path, what: what)) }
                if strict.scalars != lenient.scalars {
                    let index = zip(strict.scalars, lenient.scalars).enumerated().first { $1.0 != $1.1 }?.offset
                        ?? min(strict.count, lenient.count)
                    differ("text differs at \(index): strict …\(strict.string(in: max(0, index - 40)..<(index + 40)))… "
                           + "lenient …\(lenient.string(in: max(0, index - 40)..<(index + 40)))…")
                }
                if strict.anchors != lenient.anchors {
                    let keys = Set(strict.anchors.keys).union(lenient.anchors.keys)
                        .filter { strict.anchors[$0] != lenient.anchors[$0] }.sorted().prefix(5)
                    differ("anchors differ: " + keys.map { "\($0) \(String(describing: strict.anchors[$0])) vs \(String(describing: lenient.anchors[$0]))" }.joined(separator: ", "))
                }
                if strict.headings != lenient.headings { differ("headings differ: \(strict.headings.prefix(3)) vs \(lenient.headings.prefix(3))") }
                if strict.title != lenient.title { differ("title \(strict.title ?? "nil") vs \(lenient.title ?? "nil")") }
                if strict.isComplete != lenient.isComplete { differ("completeness differs") }
                let strictBlocks = strict.segments.map { "\($0.range) \($0.elementPath ?? "-") \($0.anchor ?? "-")" }
                let lenientBlocks = lenient.segments.map { "\($0.range) \($0.elementPath ?? "-") \($0.anchor ?? "-")" }
                if strictBlocks != lenientBlocks {
                    let index = zip(strictBlocks, lenientBlocks).enumerated().first { $1.0 != $1.1 }?.offset
                        ?? min(strictBlocks.count, lenientBlocks.count)
                    differ("segment \(index) differs: \(strictBlocks.dropFirst(index).first ?? "none") vs \(lenientBlocks.dropFirst(index).first ?? "none")")
                }
                segments += strict.segments.count
                lineMismatches += zip(strict.segments, lenient.segments).filter { $0.line != $1.line }.count
            }
        }
        return (documents, differences, lineMismatches, segments)
    }

    /// Whole documents, and each cut short at an anchor halfway through (the partial parses the
    /// chapter source makes).
    static func optionVariants(for data: Data) -> [XHTMLTextExtractor.Options] {
        var variants = [XHTMLTextExtractor.Options(), XHTMLTextExtractor.Options(stopAfterFirstHeading: true)]
        let text = String(decoding: data, as: UTF8.self)
        let ids = text.components(separatedBy: " id=\"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
        if !ids.isEmpty {
            variants.append(XHTMLTextExtractor.Options(stopAtAnchor: ids[ids.count / 2]))
            variants.append(XHTMLTextExtractor.Options(targetedIDs: Set(ids), wholeDocumentTargeted: true))
        }
        return variants
    }

    /// The archive's `.xhtml` / `.html` entries, from the ZIP's central directory.
    static func contentDocuments(_ url: URL) throws -> [String] {
        let bytes = [UInt8](try Data(contentsOf: url))
        var paths: [String] = []
        var index = 0
        while index + 46 <= bytes.count {
            if bytes[index] == 0x50, bytes[index + 1] == 0x4B, bytes[index + 2] == 0x01, bytes[index + 3] == 0x02 {
                let length = Int(bytes[index + 28]) | Int(bytes[index + 29]) << 8
                let name = String(decoding: bytes[(index + 46)..<min(bytes.count, index + 46 + length)], as: UTF8.self)
                if name.hasSuffix(".xhtml") || name.hasSuffix(".html") { paths.append(name) }
                index += 46 + length
            } else {
                index += 1
            }
        }
        return paths
    }

    func assertEquivalent(_ urls: [URL]) throws {
        var documents = 0, segments = 0, lineMismatches = 0
        for url in urls {
            let result = try compare(url)
            documents += result.documents
            segments += result.segments
            lineMismatches += result.lineMismatches
            for difference in result.differences.prefix(10) { XCTFail("\(difference)") }
        }
        XCTAssertGreaterThan(documents, 0)
        print("strict and lenient readings compared: \(documents) documents, \(segments) segments, "
              + "\(lineMismatches) with another source line")
    }

    func testRealFixturesReadTheSameEitherWay() throws {
        try RealFixtures.require(RealFixtures.wasteland)
        try RealFixtures.require(RealFixtures.childrensLiterature)
        try assertEquivalent([RealFixtures.wasteland, RealFixtures.childrensLiterature])
    }

    /// English and Japanese: Latin and CJK text, about 400 document readings.
    func testLiveManualReadsTheSameEitherWay() throws {
        let books = try LiveManualTests.books().filter { ["en", "ja"].contains($0.language) }
        guard !books.isEmpty else { throw LiveManualTests.missing("neither live-manual.en.epub nor live-manual.ja.epub found") }
        try assertEquivalent(books.map(\.url))
    }
}
