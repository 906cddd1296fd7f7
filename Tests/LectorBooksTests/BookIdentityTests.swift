import XCTest
import LectorBooks

/// `identity` keys bookmarks: it must survive copying or moving the file, and tell different
/// books apart. EPUBs with a `dc:identifier` use it; others hash their bytes.
final class BookIdentityTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        try RealFixtures.require(RealFixtures.wasteland)
        try RealFixtures.require(RealFixtures.childrensLiterature)
        directory = try TemporaryDirectory()
    }
    override func tearDown() { directory?.remove() }

    func copy(_ url: URL, to name: String) throws -> URL {
        let destination = directory.url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: url, to: destination)
        return destination
    }

    func testEPUBCopyElsewhereHasTheSameIdentity() throws {
        let copy = try copy(WastelandTests.url, to: "elsewhere/renamed.epub")
        XCTAssertEqual(try BookReader.open(copy).identity, try BookReader.open(WastelandTests.url).identity)
    }

    func testDifferentEPUBsDiffer() throws {
        XCTAssertNotEqual(try BookReader.open(WastelandTests.url).identity,
                          try BookReader.open(ChildrensLiteratureTests.url).identity)
    }

    func testHashedEPUBIdentityFollowsContentNotPath() throws {
        let opf = EPUBFixture.opf3(identifier: nil, documents: [("c1", "c1.xhtml")])
        let one = try EPUBFixture.standard(opf: opf).adding("OEBPS/c1.xhtml", EPUBFixture.xhtml(body: "<p>One.</p>"))
            .write(in: directory.url, name: "one.epub")
        let two = try EPUBFixture.standard(opf: opf).adding("OEBPS/c1.xhtml", EPUBFixture.xhtml(body: "<p>Two.</p>"))
            .write(in: directory.url, name: "two.epub")
        let moved = try copy(one, to: "moved/other-name.epub")
        let identity = try BookReader.open(one).identity
        XCTAssertTrue(identity.hasPrefix("fnv1a64:"))
        XCTAssertEqual(try BookReader.open(moved).identity, identity)
        XCTAssertNotEqual(try BookReader.open(two).identity, identity)
    }

    func testPlainTextIdentityFollowsContentNotPath() throws {
        let original = try directory.file("a.txt", "Chapter 1\n\nSame words.")
        let renamed = try directory.file("sub/b.md", "Chapter 1\n\nSame words.")
        let different = try directory.file("c.txt", "Chapter 1\n\nOther words.")
        let identity = try BookReader.open(original).identity
        XCTAssertEqual(identity, "fnv1a64:" + String(identity.dropFirst(8)))
        XCTAssertEqual(try BookReader.open(renamed).identity, identity)
        XCTAssertNotEqual(try BookReader.open(different).identity, identity)
    }

    /// FNV-1a 64 test vectors, so the identity of existing bookmarks never silently changes.
    func testHashIsFNV1a64() throws {
        XCTAssertEqual(try BookReader.open(try directory.file("a.txt", "a")).identity, "fnv1a64:af63dc4c8601ec8c")
        XCTAssertEqual(try BookReader.open(try directory.file("foobar.txt", "foobar")).identity,
                       "fnv1a64:85944171f73967e8")
    }
}
