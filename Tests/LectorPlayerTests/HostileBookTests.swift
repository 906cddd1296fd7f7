import Foundation
import LectorTestKit
import XCTest

/// Books built to hurt, opened through the daemon: each is opened or refused by name, the
/// daemon answers in bounded time and keeps serving, and what it puts on the bus is capped.
final class HostileBookTests: XCTestCase {
    private func opf(title: String = "Hostile", creator: String = "Nobody", documents: [String]) -> String {
        let items = documents.enumerated().map { "<item id=\"c\($0.offset)\" href=\"\($0.element)\" media-type=\"application/xhtml+xml\"/>" }
        let refs = documents.indices.map { "<itemref idref=\"c\($0)\"/>" }
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
          <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
            <dc:identifier id="uid">urn:uuid:hostile-\(documents.count)-\(title.utf8.count)</dc:identifier>
            <dc:title>\(title)</dc:title><dc:creator>\(creator)</dc:creator><dc:language>en</dc:language>
          </metadata>
          <manifest>\(items.joined())</manifest>
          <spine>\(refs.joined())</spine>
        </package>
        """
    }

    /// Stored, not deflated: repetitive hostile text compresses past the ZIP-bomb ratio and would
    /// be refused before any parsing (which is right, but not what these tests are about).
    private func storedBook(opf: String, _ documents: [(String, String)]) -> EPUBWriter {
        var writer = EPUBWriter()
            .adding("mimetype", "application/epub+zip", compressed: false)
            .adding("META-INF/container.xml", EPUBWriter.container(opf: "OEBPS/content.opf"))
            .adding("OEBPS/content.opf", opf, compressed: false)
        for (path, text) in documents { writer = writer.adding(path, text, compressed: false) }
        return writer
    }

    private func xhtml(_ body: String) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>t</title></head><body>\(body)</body></html>"
    }

    /// Open through Narrator1 (not playing); returns the gdbus result and the seconds it took.
    private func timedOpen(_ fixture: PlayerFixture, _ url: URL) throws -> (ProcessResult, Double) {
        let started = Date()
        let result = try fixture.openCall(url.absoluteString, options: "{'play': <false>}")
        return (result, Date().timeIntervalSince(started))
    }

    func testDeeplyNestedUnclosedMarkupIsReadInBoundedTime() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let depth = 300_000
        let nested = String(repeating: "<div><span>", count: depth / 2) + "Deep words are still read."
        let sloppy = "<html><body><p>Sloppy start" + String(repeating: "<div>", count: depth) + "and its end.</body></html>"
        let url = fixture.session.directory.appendingPathComponent("deep.epub")
        try storedBook(opf: opf(documents: ["one.xhtml", "two.html"]),
                       [("OEBPS/one.xhtml", xhtml(nested)), ("OEBPS/two.html", sloppy)]).write(to: url)
        let (result, seconds) = try timedOpen(fixture, url)
        print("deep-nesting book (\(depth) open elements): Open answered in \(String(format: "%.2f", seconds)) s")
        if result.succeeded {
            let text = try fixture.call(PlayerFixture.narrator, "GetChapterText", ["0"], path: PlayerFixture.narratorPath)
            XCTAssertTrue(text.stdout.contains("Deep words are still read."), "the nested text was lost: \(text.stdout.prefix(300))")
        } else {
            XCTAssertTrue(result.stderr.contains("io.github.lector.Error.BadBook"), "refused, but not by name: \(result)")
        }
        XCTAssertTrue(fixture.daemon.isRunning, fixture.daemon.output)
        XCTAssertFalse(try fixture.status().isEmpty, "the daemon still answers")
    }

    func testMegabyteTitlesAndAuthorsAreCappedOnTheBus() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let title = String(repeating: "Title ", count: 350_000)      // 2 MB
        let creator = String(repeating: "Author ", count: 300_000)   // 2 MB
        let url = fixture.session.directory.appendingPathComponent("huge-title.epub")
        try storedBook(opf: opf(title: title, creator: creator, documents: ["one.xhtml"]),
                       [("OEBPS/one.xhtml", xhtml("<h1>One</h1><p>Words.</p>"))]).write(to: url)
        let (result, seconds) = try timedOpen(fixture, url)
        print("2 MB title and author: Open answered in \(String(format: "%.2f", seconds)) s")
        XCTAssertTrue(result.succeeded, "\(result)")
        let metadata = try fixture.metadata()
        let album = try XCTUnwrap(metadata["xesam:album"]?.data as? String, "\(metadata)")
        XCTAssertLessThanOrEqual(album.count, 512, "the title on the bus is capped")
        XCTAssertTrue(album.hasPrefix("Title Title"))
        XCTAssertTrue(try fixture.session.busNameHasOwner(PlayerFixture.mprisName), "the daemon lost the bus")
    }

    func testAHugeSpineOpensWithAWindowOfTracks() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let count = 5_000
        let documents = (0..<count).map { "c\($0).xhtml" }
        var writer = EPUBWriter.standard(opf: opf(documents: documents))
        for (index, document) in documents.enumerated() {
            writer = writer.adding("OEBPS/" + document, xhtml("<h1>Chapter \(index + 1)</h1><p>Text of chapter \(index + 1).</p>"))
        }
        let url = fixture.session.directory.appendingPathComponent("spine.epub")
        try writer.write(to: url)
        let (result, seconds) = try timedOpen(fixture, url)
        print("\(count)-document spine: Open answered in \(String(format: "%.2f", seconds)) s")
        XCTAssertTrue(result.succeeded, "\(result)")
        let tracks = try fixture.session.run("busctl", ["--user", "get-property", PlayerFixture.mprisName, PlayerFixture.mprisPath,
                                                        PlayerFixture.trackList, "Tracks"])
        let listed = Int(tracks.stdout.split(separator: " ").dropFirst().first ?? "") ?? -1
        XCTAssertEqual(listed, 2048, "Tracks is a window of 2048 chapters: \(tracks.stdout.prefix(80))")
    }
}
