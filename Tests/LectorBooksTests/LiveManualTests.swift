import XCTest
import LectorBooks

/// Debian's Live Systems Manual (package `live-manual-epub`, 10 languages): real books made by a
/// generator (SiSU) whose `OEBPS/metadata.xhtml` is not well-formed, line 17 holding a raw
/// `<debian-live@lists.debian.org>`. Every other document is clean XHTML, so each book shows the
/// lenient reading on one document and the strict one everywhere else.
///
/// The EPUBs are not committed. Get them with
///
///     cd /tmp && apt-get download live-manual-epub && dpkg-deb -x live-manual-epub_*.deb /tmp/live-manual
///
/// or point `LECTOR_LIVE_MANUAL` at a directory holding them (searched recursively); without
/// them these tests are skipped. `GeneratedSloppyXHTMLTests` covers the same cases without them.
final class LiveManualTests: XCTestCase {
    static var directory: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.environment["LECTOR_LIVE_MANUAL"] ?? "/tmp/live-manual")
    }

    /// Every `live-manual.*.epub` under `directory`, by language ("en", "pt_BR", …).
    static func books() throws -> [(language: String, url: URL)] {
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        var found: [(String, URL)] = []
        while let url = enumerator?.nextObject() as? URL {
            let name = url.lastPathComponent
            guard name.hasPrefix("live-manual."), name.hasSuffix(".epub") else { continue }
            found.append((String(name.dropFirst("live-manual.".count).dropLast(".epub".count)), url))
        }
        guard !found.isEmpty else {
            throw missing("no live-manual.*.epub under \(directory.path) (scripts/install-deps --test fetches live-manual-epub)")
        }
        return found.sorted { $0.0 < $1.0 }
    }

    /// A missing fixture fails in CI (CI=true), where scripts/install-deps --test must have
    /// fetched it; on a developer's machine it skips, saying how to get it.
    static func missing(_ what: String) -> Error {
        ProcessInfo.processInfo.environment["CI"] == "true" ? FixtureMissing(description: what) : XCTSkip(what)
    }

    struct FixtureMissing: Error, CustomStringConvertible {
        let description: String
    }

    static func english() throws -> URL {
        guard let english = try books().first(where: { $0.language == "en" }) else {
            throw missing("no live-manual.en.epub under \(directory.path)")
        }
        return english.url
    }

    /// What a listener must never hear: tags and their pieces, character references, and the
    /// brackets around addresses. (A `<` is not debris in itself: the manual's shell examples
    /// say `cat << EOF`.)
    static func debris(in text: String) -> [String] {
        let patterns = [#"<[A-Za-z/!?]"#, #"/>"#, #"&[A-Za-z]+;"#, #"&#[0-9xX]"#, #"<(https?|ftp)://"#,
                        #"\b[a-z]+=""#, #"<[^\s<>]+@[^\s<>]+>"#]
        return patterns.filter { text.range(of: $0, options: .regularExpression) != nil }
    }

    func testEnglishManualOpensWithTheMetadataPageReadLeniently() throws {
        let url = try Self.english()
        let outline = try BookReader.open(url)
        XCTAssertEqual(outline.title, "Live Systems Manual")
        XCTAssertEqual(outline.language, "en")
        XCTAssertEqual(outline.chapters.count, 159, "190 entries: the contents page and 30 title-only entries go")
        XCTAssertTrue(outline.chapters.allSatisfy { !$0.title.isEmpty && !$0.title.hasPrefix("Chapter ") },
                      "every chapter is titled by the table of contents")

        let book = try outline.loadBook()
        XCTAssertEqual(book.chapters.count, outline.chapters.count)
        for chapter in book.chapters {
            XCTAssertEqual(Self.debris(in: chapter.text), [], "chapter \(chapter.index) \(chapter.title)")
            XCTAssertFalse(chapter.text.isEmpty)
        }
        let lenient = book.chapters.filter { !$0.warnings.isEmpty }
        XCTAssertEqual(lenient.count, 1, "only the metadata page is read leniently")
        let metadata = try XCTUnwrap(lenient.first)
        XCTAssertTrue(metadata.text.contains("Author: Live Systems Project debian-live@lists.debian.org"), metadata.text)
        XCTAssertTrue(metadata.text.contains("Publisher: Live Systems Project debian-live@lists.debian.org"))
        XCTAssertTrue(metadata.warnings[0].contains("OEBPS/metadata.xhtml"), metadata.warnings[0])
        XCTAssertTrue(metadata.warnings[0].contains("line 17"), metadata.warnings[0])
        XCTAssertEqual(book.warnings.filter { $0.contains("not well-formed") }, metadata.warnings)
        XCTAssertEqual(book.warnings.filter { !$0.contains("not well-formed") }, [
            "OEBPS/index.xhtml is the book's own table of contents (mostly links into the book); not read as a chapter",
            #"30 chapters holding only a title (e.g. "Live Systems Manual") read at the start of the next one"#,
        ], "what was repaired in the structure")
        XCTAssertEqual(metadata.title, "Metadata — SiSU Metadata, document information", "its part's title page merged in")
        XCTAssertEqual(metadata.text(of: metadata.sourceMap[0]), "Metadata")
        XCTAssertTrue(metadata.sourceMap.dropFirst().allSatisfy { $0.documentPath == "OEBPS/metadata.xhtml" })
    }

    /// All ten languages open, every chapter loads without markup debris, and the metadata page
    /// is the only lenient one. Prints the table in the report.
    func testEveryLanguageOpens() throws {
        var lines: [String] = []
        for (language, url) in try Self.books() {
            let started = Date()
            let outline = try BookReader.open(url)
            let opened = Date().timeIntervalSince(started)
            let first = try outline.loadChapter(0)
            let firstLoaded = Date().timeIntervalSince(started)
            let book = try outline.loadBook()
            let whole = Date().timeIntervalSince(started)
            for chapter in book.chapters {
                XCTAssertEqual(Self.debris(in: chapter.text), [], "\(language) chapter \(chapter.index) \(chapter.title)")
            }
            XCTAssertFalse(first.text.isEmpty)
            XCTAssertEqual(book.warnings.filter { $0.contains("not well-formed") }.count, 1, "\(language): \(book.warnings)")
            XCTAssertTrue(book.warnings.contains { $0.hasPrefix("OEBPS/index.xhtml is the book's own table of contents") },
                          "\(language): \(book.warnings)")
            XCTAssertTrue(book.chapters.contains { $0.text.contains("debian-live@lists.debian.org") }, language)
            lines.append(String(format: "%-6@ %4d chapters  open %6.1f ms  +chapter 1 %6.1f ms  whole book %7.1f ms  %@",
                                language as NSString, outline.chapters.count, opened * 1000, firstLoaded * 1000,
                                whole * 1000, (book.warnings.first ?? "no warning") as NSString))
        }
        print("live-manual:\n" + lines.joined(separator: "\n"))
    }
}
