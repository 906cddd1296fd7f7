import LectorBooks
import XCTest

/// How block boundaries reach the narrator, on the markup real books use for verse, lists, tables,
/// code and titles: no full stop is ever invented (a run-on verse line must not sound like the
/// end of a sentence), lines that stop mid-sentence are joined by a line break (the narrator's
/// clause pause, `EngineText`), and everything else keeps its paragraph break (espeak-ng's
/// paragraph pause). Real sentence ends stay as the book wrote them.
final class IntonationTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory?.remove() }

    func text(_ body: String) throws -> String { try PatternBook(directory).text(body) }

    /// The W3C samples' verse: a `div` per line inside a line group (The Waste Land).
    func testVerseLinesInDivsRunOnUntilASentenceEnds() throws {
        XCTAssertEqual(try text("""
            <h2>I. THE BURIAL OF THE DEAD</h2>
            <div class="linegroup">
              <div>April is the cruellest month, breeding</div>
              <div>Lilacs out of the dead land, mixing</div>
              <div>Memory and desire, stirring</div>
              <div>Dull roots with spring rain.</div>
              <div>Winter kept us warm, covering</div>
              <div>Earth in forgetful snow, feeding</div>
            </div>
            <div class="linegroup"><div>Summer surprised us</div></div>
            """), """
            I. THE BURIAL OF THE DEAD

            April is the cruellest month, breeding
            Lilacs out of the dead land, mixing
            Memory and desire, stirring
            Dull roots with spring rain.

            Winter kept us warm, covering
            Earth in forgetful snow, feeding

            Summer surprised us
            """, "a stanza ends its run of lines; a sentence end keeps its paragraph pause")
    }

    /// Project Gutenberg's verse: a `span` per line ending in `<br/>` inside a stanza `div`; and
    /// Standard Ebooks': a `p` per stanza, a `span` per line, `<br/>` between.
    func testVerseLinesSeparatedByBreaksKeepTheirStanzas() throws {
        XCTAssertEqual(try text("""
            <div class="poem"><div class="stanza">
              <span class="i0">Tyger Tyger, burning bright,<br/></span>
              <span class="i0">In the forests of the night;<br/></span>
              <span class="i0">What immortal hand or eye<br/></span>
            </div></div>
            <p><span>Could frame thy fearful symmetry</span><br/><span>In what distant deeps or skies</span></p>
            <p><span>Burnt the fire of thine eyes</span></p>
            """), """
            Tyger Tyger, burning bright,
            In the forests of the night;
            What immortal hand or eye

            Could frame thy fearful symmetry
            In what distant deeps or skies

            Burnt the fire of thine eyes
            """, "a stanza holding line breaks is no single line: stanzas stay paragraphs")
    }

    /// List items and table cells without punctuation are read as one run of lines; rows stay apart.
    func testListItemsAndTableCellsRunOnAsLines() throws {
        XCTAssertEqual(try text("""
            <p>You will need:</p>
            <ul><li>flour</li><li>two eggs</li><li>milk.</li></ul>
            <table><tr><th>Name</th><th>Age</th></tr><tr><td>Ada</td><td>36</td></tr></table>
            """), """
            You will need:

            flour
            two eggs
            milk.

            Name
            Age

            Ada
            36
            """)
    }

    /// Headings, all-capitals lines, titles set in a `p` by class or type, and scene breaks keep
    /// their paragraph break and get no full stop.
    func testTitlesKeepTheirParagraphBreakWithoutAFullStop() throws {
        XCTAssertEqual(try text("""
            <h1>Chapter One</h1>
            <p>CHAPTER II</p>
            <p class="chapter-title">The Return</p>
            <p epub:type="subtitle">In which nothing happens</p>
            <p>It rained.</p>
            <p>* * *</p>
            <p>It stopped</p>
            """), """
            Chapter One

            CHAPTER II

            The Return

            In which nothing happens

            It rained.

            * * *

            It stopped
            """)
    }

    /// Prose paragraphs that end a sentence, a colon or a dash are paragraphs, whatever follows.
    func testProseParagraphsStayParagraphs() throws {
        XCTAssertEqual(try text("""
            <p>He said:</p><p>“But I—”</p><p>“No.”</p><p>It was over.</p>
            """), "He said:\n\n“But I—”\n\n“No.”\n\nIt was over.")
    }

    /// A `pre` keeps its lines; text straight after a run of lines is a paragraph of its own.
    func testCodeLinesAndTextAfterARunOfLines() throws {
        XCTAssertEqual(try text("""
            <pre><code>lb config
            lb build</code></pre>
            <div><div>first line</div><div>second line</div>Then prose.</div>
            """), "lb config\nlb build\n\nfirst line\nsecond line\n\nThen prose.")
    }
}
