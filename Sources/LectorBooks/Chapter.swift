import LectorCore

/// One chapter's speakable text: what the narrator reads as one track.
///
/// `text` is plain prose for a speech engine, in the book's own words: paragraphs separated by a
/// blank line, and lines that run on mid-sentence (verse, list items, table cells, code) by a
/// line break; whitespace collapsed, page numbers and note markers left out. No punctuation is
/// invented: the narrator gives a bare line break a clause pause (`EngineText`), e.g.
///
///     I. THE BURIAL OF THE DEAD
///
///     April is the cruellest month, breeding
///     Lilacs out of the dead land, mixing
///
/// `sourceMap` says where each stretch of `text` came from, so a reader UI can highlight what is
/// being heard.
public struct Chapter: Sendable, Equatable {
    /// 0-based position in the book's chapter list (the MPRIS track number minus one).
    public var index: Int
    public var title: String
    public var text: String
    /// Spans in `text` order; their ranges do not overlap. Text between spans (the blank line
    /// that joins two documents, or a title spoken for a chapter with no text of its own) maps
    /// to nothing.
    public var sourceMap: [SourceSpan]
    /// What had to be forgiven to read this chapter, one line each for a log, e.g. "OEBPS/metadata.xhtml
    /// is not well-formed XML at line 17 (a name was expected …); read leniently as HTML". Empty
    /// for a clean book. The text is still the best reading of the document; a listener may hear
    /// a stray word where the markup was ambiguous.
    public var warnings: [String]
    /// Stretches of `text` the book marks as written in a language (`xml:lang` on a span or a
    /// block: a Latin phrase, a German stanza, the whole chapter), in order, in the same offsets
    /// as `text`: the narrator reads each in its language's voice when one is installed.
    public var languageRuns: [LanguageRun]

    public init(index: Int, title: String, text: String, sourceMap: [SourceSpan], warnings: [String] = [],
                languageRuns: [LanguageRun] = []) {
        self.index = index
        self.title = title
        self.text = text
        self.sourceMap = sourceMap
        self.warnings = warnings
        self.languageRuns = languageRuns
    }

    /// The stretch of `text` a span covers, for checking or showing it.
    ///
    ///     chapter.text(of: chapter.sourceMap[0])  // "I. THE BURIAL OF THE DEAD."
    public func text(of span: SourceSpan) -> String {
        let scalars = Array(text.unicodeScalars)
        let lower = max(0, min(span.textRange.lowerBound, scalars.count))
        let upper = max(lower, min(span.textRange.upperBound, scalars.count))
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[lower..<upper])
        return String(view)
    }
}
