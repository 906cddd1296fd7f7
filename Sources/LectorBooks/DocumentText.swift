import LectorCore

/// One content document turned into speakable text, with everything needed to cut chapters out
/// of it: where each `id` lands in the text, where each block's text came from, and the headings.
///
/// Chapters are slices of this text, so a `SourceSpan` can always be checked against it:
///
///     let doc: DocumentText = …           // EPUB/wasteland-content.xhtml
///     doc.anchors["ch2"]                  // offset of "II. A GAME OF CHESS."
///     doc.string(in: doc.anchors["ch1"]!..<doc.anchors["ch2"]!)   // part I, heading first
struct DocumentText: Sendable {
    var path: String
    /// The text, 1, 2 or 4 bytes a scalar (a plain text's one chapter can be the whole file).
    var scalars: ScalarStore
    var segments: [TextSegment]
    /// Element `id` (and legacy `<a name>`) → offset of the first character spoken after it.
    var anchors: [String: Int]
    var headings: [DocumentHeading]
    /// The document's `<title>`, if any.
    var title: String?
    /// False when parsing stopped early, at an anchor (see `XHTMLTextExtractor.Options.stopAtAnchor`):
    /// the text is then a prefix of the whole document's, identical as far as it goes.
    var isComplete = true
    /// Set when the document was not well-formed XML and was read as HTML (`HTMLDocumentParser`) instead:
    /// what was wrong, for the listener's log, e.g. "OEBPS/metadata.xhtml is not well-formed XML
    /// at line 17 (…); read leniently as HTML".
    var warning: String?
    /// How the document looks on the read-along page, when it was asked for
    /// (`XHTMLTextExtractor.Options.recordsMarkup`); its runs index `scalars`.
    var markup: DocumentMarkup?
    /// Stretches in a language the book marks (`xml:lang`, `lang`), in order, for the narrator
    /// to read in that language's voice.
    var languages: [LanguageRun] = []
    /// Elements the book gives phonemes (`ssml:ph`), in order.
    var phonemeRuns: [PhonemeRun] = []
    /// PLS lexicons its head links (`<link rel="pronunciation">`).
    var pronunciationLinks: [PronunciationLink] = []

    struct PronunciationLink: Sendable, Equatable {
        /// The lexicon's archive path.
        var path: String
        /// `hreflang`: the language the lexicon is for, when the link says.
        var language: String?
    }
    /// Links to other documents of the book, and the scalars of text inside them: a page that
    /// is mostly such links is a contents page (`ContentsPage`).
    var links: (count: Int, scalars: Int) = (0, 0)
    /// Its footnotes and endnotes: where each is read, and the text of those taken out of the
    /// flow (empty when notes are not read, `BookReadingOptions.Notes.skip`).
    var notes = DocumentNotes()

    var count: Int { scalars.count }

    var isEmpty: Bool { scalars.isEmpty }

    func string(in range: Range<Int>) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[range.clamped(to: 0..<scalars.count)])
        return String(view)
    }

    /// `range` without leading and trailing whitespace (the separators between blocks).
    func trimmed(_ range: Range<Int>) -> Range<Int> {
        scalars.trimmedRange(range)
    }

    /// Words in `range`, counted as runs of non-whitespace.
    func wordCount(in range: Range<Int>) -> Int {
        var words = 0
        var inWord = false
        for scalar in scalars[range.clamped(to: 0..<scalars.count)] {
            let isSpace = scalar.properties.isWhitespace
            if !isSpace && !inWord { words += 1 }
            inWord = !isSpace
        }
        return words
    }

    /// The first heading starting inside `range`.
    func firstHeading(in range: Range<Int>) -> DocumentHeading? {
        headings.first { range.contains($0.offset) }
    }
}
