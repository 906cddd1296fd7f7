import XCTest
import LectorBooks
import LectorTestKit

/// Every kind of file the daemon must refuse, each with its own `BookError` case and a message
/// that names the file.
final class BadInputTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    /// Asserts that opening and fully loading `url` fails with `expected`, whose message names the file.
    func assertRefused(_ url: URL, limits: BookLimits = .default, _ expected: BookError,
                       file: StaticString = #filePath, line: UInt = #line) {
        do {
            let book = try Book.load(url, limits: limits)
            XCTFail("loaded \(book.chapters.count) chapters, expected \(expected)", file: file, line: line)
        } catch {
            XCTAssertEqual(error, expected, file: file, line: line)
            XCTAssertTrue(error.description.contains(url.path), "message names the file: \(error)", file: file, line: line)
            XCTAssertEqual(error.localizedDescription, error.description, file: file, line: line)
        }
    }

    func simpleBook(content: String = EPUBFixture.xhtml(body: "<p>Hello.</p>")) -> EPUBFixture {
        EPUBFixture.standard(opf: EPUBFixture.opf3(documents: [("c1", "c1.xhtml")]))
            .adding("OEBPS/c1.xhtml", content)
    }

    func testRandomBytesNamedEPUBAreNotAZip() throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<4096).map { _ in UInt8.random(in: 1...255, using: &generator) })
        let url = try directory.file("random.epub", Data("NOPE".utf8) + bytes)
        assertRefused(url, .notAZip(file: url))
    }

    func testARealBookCutInHalfIsATruncatedArchive() throws {
        try RealFixtures.require(ChildrensLiteratureTests.url)
        let whole = try Data(contentsOf: ChildrensLiteratureTests.url)
        let url = try directory.file("half.epub", whole.prefix(whole.count / 2))
        assertRefused(url, .truncatedArchive(file: url, reason: "no end-of-central-directory record"))
    }

    func testDamagedEntryDataIsATruncatedArchive() throws {
        var bytes = [UInt8](try simpleBook(content: EPUBFixture.xhtml(body: String(repeating: "<p>Hello there.</p>", count: 400)))
            .zipData())
        // Scramble the deflate data of the content document (after its local header and name).
        let name = Array("OEBPS/c1.xhtml".utf8)
        let header = try XCTUnwrap((0..<(bytes.count - name.count)).first { Array(bytes[$0..<($0 + name.count)]) == name })
        for index in (header + name.count + 40)..<(header + name.count + 80) { bytes[index] ^= 0x5A }
        let url = try directory.file("damaged.epub", Data(bytes))
        XCTAssertThrowsError(try Book.load(url)) { error in
            guard case .truncatedArchive(let file, let reason) = error as? BookError else {
                return XCTFail("expected truncatedArchive, got \(error)")
            }
            XCTAssertEqual(file, url)
            XCTAssertTrue(reason.contains("OEBPS/c1.xhtml"), reason)
            XCTAssertTrue("\(error)".contains(url.path))
        }
    }

    func testMissingContainer() throws {
        let url = try EPUBFixture().adding("mimetype", "application/epub+zip", compressed: false)
            .adding("OEBPS/content.opf", EPUBFixture.opf3(documents: []))
            .write(in: directory.url, name: "no-container.epub")
        assertRefused(url, .missingContainer(file: url))
    }

    func testContainerPointingAtAMissingPackageDocument() throws {
        let url = try EPUBFixture().adding("mimetype", "application/epub+zip", compressed: false)
            .adding("META-INF/container.xml", EPUBFixture.container(opf: "OEBPS/gone.opf"))
            .write(in: directory.url, name: "no-opf.epub")
        assertRefused(url, .missingPackageDocument(file: url, path: "OEBPS/gone.opf"))
    }

    func testBrokenXMLInThePackageDocumentNamesTheLine() throws {
        let opf = EPUBFixture.opf3(documents: [("c1", "c1.xhtml")])
            .replacingOccurrences(of: "<dc:language>en</dc:language>", with: "<dc:language>en</dc:lang>")
        let line = opf.components(separatedBy: "\n").firstIndex { $0.contains("</dc:lang>") }! + 1
        let url = try EPUBFixture.standard(opf: opf).write(in: directory.url, name: "broken-opf.epub")
        assertRefused(url, .brokenXML(file: url, path: "OEBPS/content.opf", line: line,
                                      reason: "tag name mismatch (an element is closed by the wrong end tag)"))
    }

    /// A content document that is not well-formed is read leniently (see
    /// `GeneratedSloppyXHTMLTests`), and the chapter's warning names the document, line and reason.
    func testBrokenXMLInAContentDocumentIsReadLenientlyWithAWarning() throws {
        let content = EPUBFixture.xhtml(body: "<p>Fine.</p>\n<p>Not <b>closed.</p>\n<p>After.</p>")
        let line = content.components(separatedBy: "\n").firstIndex { $0.contains("Not <b>") }! + 1
        let url = try simpleBook(content: content).write(in: directory.url, name: "broken-content.epub")
        let book = try Book.load(url)
        XCTAssertEqual(book.chapters.map(\.text), ["Fine.\n\nNot closed.\n\nAfter."])
        XCTAssertEqual(book.chapters[0].warnings, [
            "OEBPS/c1.xhtml is not well-formed XML at line \(line) (tag name mismatch (an element is closed by the "
                + "wrong end tag)); read leniently as HTML",
        ])
        XCTAssertEqual(book.warnings, book.chapters[0].warnings)
    }

    /// Without a DTD an undeclared entity is a well-formedness error, so the document is read
    /// leniently, which drops the unknown reference. (With the XHTML 1.1 DTD named but unread,
    /// libxml2 only warns and drops it; the HTML entities themselves are decoded either way.)
    func testUnknownNamedEntityWithoutADoctypeIsReadLeniently() throws {
        let content = """
            <?xml version="1.0" encoding="UTF-8"?>
            <html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title></head>
            <body><p>An &bogusentity; here &mdash; really.</p></body></html>
            """
        let url = try simpleBook(content: content).write(in: directory.url, name: "entity.epub")
        let chapter = try Book.load(url).chapters[0]
        XCTAssertEqual(chapter.text, "An here — really.")
        XCTAssertEqual(chapter.warnings.count, 1)
        XCTAssertTrue(chapter.warnings[0].contains("OEBPS/c1.xhtml is not well-formed XML at line 3"), chapter.warnings[0])
        XCTAssertTrue(chapter.warnings[0].contains("entity"), chapter.warnings[0])
    }

    /// The documents that describe the book are not forgiven: a broken container, NCX or
    /// navigation document is refused with its line, like the package document above.
    func testBrokenContainerIsRefused() throws {
        let container = EPUBFixture.container(opf: "OEBPS/content.opf").replacingOccurrences(of: "</rootfiles>", with: "</rootfile>")
        let line = container.components(separatedBy: "\n").firstIndex { $0.contains("</rootfile>") }! + 1
        let url = try EPUBFixture().adding("mimetype", "application/epub+zip", compressed: false)
            .adding("META-INF/container.xml", container)
            .adding("OEBPS/content.opf", EPUBFixture.opf3(documents: [("c1", "c1.xhtml")]))
            .adding("OEBPS/c1.xhtml", EPUBFixture.xhtml(body: "<p>Hello.</p>"))
            .write(in: directory.url, name: "broken-container.epub")
        assertRefused(url, .brokenXML(file: url, path: "META-INF/container.xml", line: line,
                                      reason: "tag name mismatch (an element is closed by the wrong end tag)"))
    }

    func testBrokenNCXIsRefused() throws {
        let ncx = GeneratedEPUB2Tests.ncx.replacingOccurrences(of: "<text>The Storm</text>", with: "<text>The Storm <b>&</b></text>")
        let line = ncx.components(separatedBy: "\n").firstIndex { $0.contains("The Storm <b>") }! + 1
        let url = try EPUBFixture.standard(opf: GeneratedEPUB2Tests.opf)
            .adding("OEBPS/toc.ncx", ncx)
            .adding("OEBPS/Text/title.xhtml", EPUBFixture.xhtml(body: "<p>Title.</p>"))
            .adding("OEBPS/Text/chapter 1.xhtml", EPUBFixture.xhtml(body: "<p>One.</p>"))
            .adding("OEBPS/Text/ch2.xhtml", EPUBFixture.xhtml(body: "<p>Two.</p>"))
            .adding("OEBPS/Text/answers.xhtml", EPUBFixture.xhtml(body: "<p>Answers.</p>"))
            .write(in: directory.url, name: "broken-ncx.epub")
        assertRefused(url, .brokenXML(file: url, path: "OEBPS/toc.ncx", line: line,
                                      reason: "a name was expected (a bare & or < should be &amp; or &lt;)"))
    }

    func testBrokenNavigationDocumentIsRefused() throws {
        let opf = EPUBFixture.opf3(
            documents: [("c1", "c1.xhtml")],
            extraManifest: #"<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>"#)
        let nav = EPUBFixture.xhtml(body: """
            <nav epub:type="toc"><ol>
              <li><a href="c1.xhtml">One</li>
            </ol></nav>
            """)
        let line = nav.components(separatedBy: "\n").firstIndex { $0.contains("One</li>") }! + 1
        let url = try EPUBFixture.standard(opf: opf).adding("OEBPS/nav.xhtml", nav)
            .adding("OEBPS/c1.xhtml", EPUBFixture.xhtml(body: "<p>Hello.</p>"))
            .write(in: directory.url, name: "broken-nav.epub")
        assertRefused(url, .brokenXML(file: url, path: "OEBPS/nav.xhtml", line: line,
                                      reason: "tag name mismatch (an element is closed by the wrong end tag)"))
    }

    static func encryption(_ uris: [String]) -> String {
        let data = uris.map { """
            <enc:EncryptedData>
              <enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
              <enc:CipherData><enc:CipherReference URI="\($0)"/></enc:CipherData>
            </enc:EncryptedData>
            """ }.joined()
        return """
            <?xml version="1.0"?>
            <encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container"
                        xmlns:enc="http://www.w3.org/2001/04/xmlenc#">\(data)</encryption>
            """
    }

    func testEncryptedContentDocumentIsRefused() throws {
        let url = try simpleBook()
            .adding("META-INF/encryption.xml", Self.encryption(["OEBPS/fonts/a.otf", "OEBPS/c1.xhtml"]))
            .write(in: directory.url, name: "drm.epub")
        assertRefused(url, .encrypted(file: url, resources: ["OEBPS/c1.xhtml"]))
    }

    func testObfuscatedFontsAloneAreFine() throws {
        let url = try simpleBook()
            .adding("META-INF/encryption.xml", Self.encryption(["OEBPS/fonts/a.otf", "OEBPS/fonts/b.woff2"]))
            .write(in: directory.url, name: "fonts.epub")
        XCTAssertEqual(try Book.load(url).chapters.map(\.text), ["Hello."])
    }

    /// 80 MiB of zeros deflate to about 80 KB: refused on its declared size before a byte is inflated.
    func testZipBombDeclaringMoreThanTheEntryLimitIsRefusedBeforeExtracting() throws {
        let fixture = simpleBook()
        let zip = try fixture.zipData()
        let bomb = try EPUBFixture.bomb(path: "OEBPS/c1.xhtml", size: 80 << 20, into: EPUBFixture.standard(
            opf: EPUBFixture.opf3(documents: [("c1", "c1.xhtml")])))
        XCTAssertLessThan(bomb.count, 200_000)
        XCTAssertGreaterThan(zip.count, 0)
        let url = try directory.file("bomb.epub", bomb)
        assertRefused(url, .tooLarge(file: url, violation: .entry(path: "OEBPS/c1.xhtml", size: 80 << 20,
                                                                   limit: 64 << 20)))
    }

    func testCompressionRatioOverTheLimitIsRefused() throws {
        let bomb = try EPUBFixture.bomb(path: "OEBPS/c1.xhtml", size: 4 << 20, into: EPUBFixture.standard(
            opf: EPUBFixture.opf3(documents: [("c1", "c1.xhtml")])))
        let url = try directory.file("ratio.epub", bomb)
        XCTAssertThrowsError(try BookReader.open(url)) { error in
            guard case .tooLarge(_, .ratio(let path, let compressed, let uncompressed, let limit)) = error as? BookError else {
                return XCTFail("expected a ratio violation, got \(error)")
            }
            XCTAssertEqual(path, "OEBPS/c1.xhtml")
            XCTAssertEqual(uncompressed, 4 << 20)
            XCTAssertEqual(limit, 200)
            XCTAssertGreaterThan(uncompressed / compressed, 200)
            XCTAssertTrue("\(error)".contains(url.path))
        }
    }

    func testTotalDeclaredSizeOverTheLimitIsRefused() throws {
        let tight = BookLimits(maxEntrySize: 1 << 20, maxTotalSize: 2 << 20, maxCompressionRatio: 200,
                               ratioCheckedAbove: 1 << 20)
        let page = Data(count: 900 << 10)
        let url = try simpleBook()
            .adding("OEBPS/a.bin", page, compressed: false).adding("OEBPS/b.bin", page, compressed: false)
            .adding("OEBPS/c.bin", page, compressed: false)
            .write(in: directory.url, name: "total.epub")
        XCTAssertThrowsError(try BookReader.open(url, limits: tight)) { error in
            guard case .tooLarge(let file, .total(_, let limit)) = error as? BookError else {
                return XCTFail("expected a total violation, got \(error)")
            }
            XCTAssertEqual(file, url)
            XCTAssertEqual(limit, 2 << 20)
            XCTAssertTrue("\(error)".contains(url.path))
        }
    }

    /// Headers can lie: an entry declaring 1000 bytes that inflates to 4 MiB is cut off at 1000,
    /// never held whole in memory.
    func testEntryInflatingBeyondItsDeclaredSizeIsStopped() throws {
        let bomb = try EPUBFixture.bomb(path: "OEBPS/c1.xhtml", size: 4 << 20, into: EPUBFixture.standard(
            opf: EPUBFixture.opf3(documents: [("c1", "c1.xhtml")])))
        let lying = EPUBFixture.declaringUncompressedSize(1000, for: "OEBPS/c1.xhtml", in: bomb)
        let url = try directory.file("lying.epub", lying)
        assertRefused(url, .tooLarge(file: url, violation: .inflated(path: "OEBPS/c1.xhtml", declared: 1000,
                                                                      limit: 64 << 20)))
    }

    func testEntryNameClimbingOutOfTheArchiveIsRefused() throws {
        let url = try simpleBook().adding("../../evil.xhtml", "<p>x</p>").write(in: directory.url, name: "slip.epub")
        assertRefused(url, .pathEscapesArchive(file: url, path: "../../evil.xhtml"))
    }

    func testAbsoluteEntryNameIsRefused() throws {
        let url = try simpleBook().adding("/etc/cron.d/evil", "x").write(in: directory.url, name: "absolute.epub")
        assertRefused(url, .pathEscapesArchive(file: url, path: "/etc/cron.d/evil"))
    }

    func testManifestHrefClimbingOutOfTheArchiveIsRefused() throws {
        let opf = EPUBFixture.opf3(documents: [("c1", "c1.xhtml"), ("pw", "../../etc/passwd")])
        let url = try EPUBFixture.standard(opf: opf).adding("OEBPS/c1.xhtml", EPUBFixture.xhtml(body: "<p>Hi.</p>"))
            .write(in: directory.url, name: "href.epub")
        assertRefused(url, .pathEscapesArchive(file: url, path: "../../etc/passwd"))
    }

    func testSpineDocumentMissingFromTheArchive() throws {
        let url = try EPUBFixture.standard(opf: EPUBFixture.opf3(documents: [("c1", "c1.xhtml")]))
            .write(in: directory.url, name: "hollow.epub")
        assertRefused(url, .missingResource(file: url, path: "OEBPS/c1.xhtml"))
    }

    func testBookWhoseDocumentsHaveNoTextIsEmpty() throws {
        let opf = EPUBFixture.opf3(documents: [("a", "a.xhtml"), ("b", "b.xhtml")])
        let url = try EPUBFixture.standard(opf: opf)
            .adding("OEBPS/a.xhtml", EPUBFixture.xhtml(body: #"<div><img src="x.png" alt=""/><img src="y.png"/></div>"#))
            .adding("OEBPS/b.xhtml", EPUBFixture.xhtml(body: "<p>   </p><script>var x = 1;</script>"))
            .write(in: directory.url, name: "blank.epub")
        assertRefused(url, .emptyBook(file: url))
    }

    func testBookWithAnEmptySpineIsEmpty() throws {
        let url = try EPUBFixture.standard(opf: EPUBFixture.opf3(documents: [])).write(in: directory.url, name: "none.epub")
        assertRefused(url, .emptyBook(file: url))
    }

    func testZeroByteFile() throws {
        let url = try directory.file("empty.txt", Data())
        assertRefused(url, .emptyFile(file: url))
    }

    func testDirectory() throws {
        let url = directory.url.appendingPathComponent("unpacked.epub", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        do {
            _ = try Book.load(url)
            XCTFail("a directory loaded")
        } catch {
            guard case .isDirectory(let file) = error else { return XCTFail("expected isDirectory, got \(error)") }
            XCTAssertEqual(file.path, url.path)
            XCTAssertTrue(error.description.contains(url.path))
        }
    }

    /// A FIFO (e.g. `lector read <(curl ...)`) has no size to check and may never end: refused
    /// as such, not as "empty (0 bytes)" as before.
    func testFIFOIsNotARegularFile() throws {
        let url = directory.url.appendingPathComponent("pipe.txt")
        XCTAssertEqual(mkfifo(url.path, 0o600), 0)
        assertRefused(url, .notARegularFile(file: url, kind: "FIFO (named pipe)"))
    }

    func testDeviceIsNotARegularFile() throws {
        let url = URL(fileURLWithPath: "/dev/zero")
        assertRefused(url, .notARegularFile(file: url, kind: "character device"))
        let link = directory.url.appendingPathComponent("zero.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: url)
        assertRefused(link, .notARegularFile(file: link, kind: "character device"))
    }

    /// The size limit holds for the file a symbolic link names, not the link's own size (which
    /// let a link to a 70 MB text file past the 64 MiB limit).
    func testSymbolicLinkToATooLargeTextIsTooLarge() throws {
        let big = try directory.file("big.txt", String(repeating: "A sentence of a long book. ", count: 4000))
        let link = directory.url.appendingPathComponent("link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: big)
        let limits = BookLimits(maxEntrySize: 50_000, maxTotalSize: 1 << 20, maxCompressionRatio: 200,
                                ratioCheckedAbove: 1 << 20)
        let size = UInt64(try Data(contentsOf: big).count)
        assertRefused(link, limits: limits,
                      .tooLarge(file: link, violation: .entry(path: "link.txt", size: size, limit: 50_000)))
        XCTAssertNoThrow(try Book.load(link), "a link to a text under the limit opens")
    }

    func testMissingFileIsUnreadable() throws {
        let url = directory.url.appendingPathComponent("nowhere.epub")
        assertRefused(url, .unreadable(file: url, reason: "no such file"))
    }

    func testBinaryFileAsTextIsAnUnsupportedEncoding() throws {
        let url = try directory.file("image.txt", EPUBFixture.pngBytes + Data(repeating: 0, count: 64))
        assertRefused(url, .unsupportedEncoding(file: url, detected: "binary data (it contains NUL bytes)"))
    }

    func testUTF16WithoutAByteOrderMarkIsNamed() throws {
        let url = try directory.file("wide.txt", "Chapter 1\n\nHello there.".data(using: .utf16LittleEndian)!)
        assertRefused(url, .unsupportedEncoding(file: url, detected: "UTF-16 little-endian without a byte order mark"))
    }

    func testChapterOutOfRange() throws {
        let url = try simpleBook().write(in: directory.url, name: "one.epub")
        let outline = try BookReader.open(url)
        XCTAssertThrowsError(try outline.loadChapter(1)) { error in
            XCTAssertEqual(error as? BookError, .noSuchChapter(file: url, index: 1, count: 1))
        }
    }
}

/// A PDF is refused as a PDF, by its content whatever its name, never read as text or bytes.
final class PDFRefusalTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    static let minimalPDF = PDFWriter.data(saying: "Hello PDF")

    func testAPDFIsRefusedAsAPDFWhateverItsNameWithHowToConvertIt() throws {
        for name in ["paper.pdf", "paper.txt", "paper.epub", "paper"] {
            let url = try directory.file(name, Self.minimalPDF)
            do {
                _ = try BookReader.open(url)
                XCTFail("\(name): a PDF was opened")
            } catch {
                XCTAssertEqual(error, .pdf(file: url), name)
                XCTAssertTrue(error.description.contains(url.path), error.description)
                XCTAssertTrue(error.description.contains("is a PDF: Lector reads EPUB and plain text"), error.description)
                XCTAssertTrue(error.description.contains("pdftotext") && error.description.contains("ebook-convert"), error.description)
            }
        }
        // Junk before the header, as PDF readers accept (within the first 1024 bytes).
        let late = try directory.file("late.bin", Data("garbage line\r\n".utf8) + Self.minimalPDF)
        XCTAssertThrowsError(try BookReader.open(late)) { XCTAssertEqual($0 as? BookError, .pdf(file: late)) }
    }

    func testTextThatMentionsThePDFHeaderIsStillText() throws {
        let url = try directory.file("notes.txt", "Chapter 1\n\nA PDF file starts with the bytes %PDF- and a version.\n")
        let outline = try BookReader.open(url)
        XCTAssertEqual(outline.format, .plainText)
        XCTAssertFalse(BookReader.isPDF(Array("see %PDF-1.4 here".utf8)))
        XCTAssertTrue(BookReader.isPDF(Array("%PDF-1.7".utf8)))
        XCTAssertTrue(BookReader.isPDF(Array("\n%PDF-1.7".utf8)))
        XCTAssertFalse(BookReader.isPDF(Array("%PDF".utf8)))
    }
}
