import LectorBooks
import LectorCore
import XCTest

/// Language changes the book marks (`xml:lang`, `lang` on spans and blocks) reach the chapter as
/// `languageRuns` in its text's offsets, for the narrator to switch voices.
final class LanguageTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory?.remove() }

    func runs(_ chapter: Chapter) -> [String] {
        chapter.languageRuns.map { run in
            let scalars = Array(chapter.text.unicodeScalars)[run.range]
            return run.language + ": " + String(String.UnicodeScalarView(scalars))
        }
    }

    func testSpansBlocksAndInheritance() throws {
        let chapter = try PatternBook(directory).open([("c1", """
            <p>He wrote <i xml:lang="la">carpe diem</i> on the wall.</p>
            <blockquote lang="de"><p>Frisch weht der Wind</p><p>der Heimat <em>zu</em>.</p></blockquote>
            <p xml:lang="grc">Σίβυλλα <span lang="en">(the Sibyl)</span> τί θέλεις;</p>
            <p lang="not a tag">Plain.</p>
            """)]).loadChapter(0)
        XCTAssertEqual(runs(chapter), [
            "la: carpe diem",
            "de: Frisch weht der Wind\nder Heimat zu.",
            "grc: Σίβυλλα", "en: (the Sibyl)", "grc: τί θέλεις;",
        ], "runs of one language with only separators between are one run; a bad tag is no language")
    }

    /// The Waste Land's German, Latin and Greek, in the chapters' own offsets.
    func testTheWasteLandsForeignPassages() throws {
        try RealFixtures.require(RealFixtures.wasteland)
        let outline = try BookReader.open(RealFixtures.wasteland)
        let titlePage = try outline.loadChapter(0)
        XCTAssertTrue(runs(titlePage).contains("grc: Σίβυλλα τί θέλεις"), "\(runs(titlePage))")
        XCTAssertTrue(runs(titlePage).contains { $0.hasPrefix("la: \"Nam Sibyllam quidem Cumis") })
        let burial = try outline.loadChapter(1)
        XCTAssertTrue(runs(burial).contains("de: Bin gar keine Russin, stamm' aus Litauen, echt deutsch."))
        XCTAssertTrue(runs(burial).contains("de: Frisch weht der Wind\nDer Heimat zu\nMein Irisch Kind,\nWo weilest du?"))
        for run in burial.languageRuns { XCTAssertLessThanOrEqual(run.range.upperBound, burial.text.unicodeScalars.count) }
    }
}
