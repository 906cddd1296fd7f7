import LectorCore

/// Accumulates speakable text the way a listener should hear it, for XHTML and plain text alike.
///
/// Callers feed raw text runs and say where blocks end; the builder collapses whitespace, drops
/// invisible characters (soft hyphens, zero-width spaces), separates paragraphs with a blank line
/// and lines with a newline. It adds no punctuation of its own: a heading or a verse line that
/// ends without any keeps its words as the book wrote them, and the narrator makes the boundary
/// heard (espeak-ng pauses and ends a paragraph at a blank line; a line break after words without
/// punctuation gets a clause pause with a rising pitch, see `EngineText`), so a run-on verse line
/// is not read as the end of a sentence:
///
///     var builder = SpeakableTextBuilder()
///     builder.append("  I. THE BURIAL\n  OF THE DEAD ", origin: origin)
///     builder.endBlock(.paragraph)
///     builder.append("April is the cruellest month, breeding", origin: origin)
///     builder.endBlock(.line)
///     builder.append("Lilacs out of the dead land", origin: origin)
///     builder.finish()
///     // "I. THE BURIAL OF THE DEAD\n\nApril is the cruellest month, breeding\nLilacs out of the dead land"
struct SpeakableTextBuilder {
    enum Separator: Int, Comparable {
        case none = 0, line = 1, paragraph = 2

        static func < (lhs: Separator, rhs: Separator) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Where a segment's text comes from, asked for only when a segment starts.
    struct Origin {
        var elementPath: String?
        var line: Int
    }

    /// Compact as it grows (1 byte a scalar until a wider one comes): a document's text is
    /// built here whole, and a 10-MB document as `[Unicode.Scalar]` took 40 MB, 100 MB while the
    /// array doubled.
    private(set) var scalars = ScalarStore()
    private(set) var segments: [TextSegment] = []

    private(set) var anchors: [String: Int] = [:]
    /// Stretches of the text in a language the book marks (`xml:lang`), in order; runs of one
    /// language with nothing but separators between are one run.
    private(set) var languages: [LanguageRun] = []
    /// Elements the book gives phonemes (`ssml:ph`), in order.
    private(set) var phonemeRuns: [PhonemeRun] = []
    /// The language of the last run marked, nil for the book's own: a run of the same language
    /// right after it extends it.
    private var lastLanguage: String??
    private var pendingAnchors: [String] = []
    private var latestAnchor: String?
    private var pendingSeparator: Separator = .none
    private var pendingSpace = false
    private var openSegment: (start: Int, origin: Origin, anchor: String?)?

    /// Characters with no sound and no width: soft hyphen, zero-width space, word joiner, BOM.
    static let invisible: Set<Unicode.Scalar> = ["\u{00AD}", "\u{200B}", "\u{2060}", "\u{FEFF}"]

    /// What `append` makes of a character: dropped, a word gap (whitespace and controls, which
    /// collapse to one space or separator), or text kept as it is.
    enum ScalarKind { case invisible, space, text }

    static func kind(of scalar: Unicode.Scalar) -> ScalarKind {
        // ASCII first: the Unicode property lookups and the Set hash cost ~100 ns a scalar.
        if scalar.value < 0x80 { return scalar.value <= 0x20 || scalar.value == 0x7F ? .space : .text }
        if invisible.contains(scalar) { return .invisible }
        return scalar.properties.isWhitespace || scalar.properties.generalCategory == .control ? .space : .text
    }

    /// Room for about `count` scalars at once, when the size is known (a plain-text chapter's
    /// bytes): growing by doubling holds the old and the new copy together at the end.
    mutating func reserveCapacity(_ count: Int) { scalars.reserveCapacity(count) }

    /// Offset where the currently open segment started, if one is open.
    var openSegmentStart: Int? { openSegment?.start }

    var hasText: Bool { !scalars.isEmpty }

    /// Where the next character appended will land, separator or space included.
    var nextTextOffset: Int {
        if openSegment != nil { return scalars.count + (pendingSpace ? 1 : 0) }
        guard !scalars.isEmpty else { return 0 }
        switch pendingSeparator {
        case .paragraph: return scalars.count + 2
        case .line, .none: return scalars.count + 1
        }
    }

    /// Remembers an element id; it lands on the next character spoken, after any separator.
    mutating func markAnchor(_ id: String) {
        if anchors[id] == nil, !pendingAnchors.contains(id) { pendingAnchors.append(id) }
        latestAnchor = id
    }

    /// Appends a run of raw text and returns the scalars it became, or nil when it held only
    /// whitespace and invisible characters. The range starts at the run's first character, after
    /// any separator or space put before it, and ends at its last (a trailing space is only
    /// pending): exactly the run's text with inner whitespace collapsed, what the read-along page
    /// shows for it. `"  wide   open "` after "The" gives 4..<13 of "The wide open".
    @discardableResult
    mutating func append(_ text: String, origin: () -> Origin) -> Range<Int>? {
        var runStart: Int?
        for scalar in text.unicodeScalars {
            let kind = Self.kind(of: scalar)
            if kind == .invisible { continue }
            if kind == .space {
                if openSegment != nil { pendingSpace = true }
                continue
            }
            if openSegment == nil {
                if !scalars.isEmpty {
                    switch pendingSeparator {
                    case .paragraph: scalars.append(contentsOf: ["\n", "\n"])
                    case .line: scalars.append("\n")
                    case .none: scalars.append(" ")
                    }
                }
                pendingSeparator = .none
                openSegment = (scalars.count, origin(), latestAnchor)
            } else if pendingSpace {
                scalars.append(" ")
            }
            pendingSpace = false
            if !pendingAnchors.isEmpty {
                for id in pendingAnchors { anchors[id] = scalars.count }
                pendingAnchors.removeAll()
            }
            if runStart == nil { runStart = scalars.count }
            scalars.append(scalar)
        }
        return runStart.map { $0..<scalars.count }
    }

    /// Says which language `run` (what `append` returned) is in: nil for the book's own.
    ///
    ///     let run = builder.append("carpe diem", origin: origin)
    ///     builder.markLanguage(run, "la")      // languages: [9..<19 "la"]
    mutating func markLanguage(_ run: Range<Int>?, _ language: String?) {
        guard let run else { return }
        defer { lastLanguage = .some(language) }
        guard let language else { return }
        if lastLanguage == .some(language), let last = languages.indices.last, languages[last].range.upperBound <= run.lowerBound {
            languages[last].range = languages[last].range.lowerBound..<run.upperBound
        } else {
            languages.append(LanguageRun(range: run, language: language))
        }
    }

    /// Says that `range` (an element's text, trimmed) is to be said as `phonemes`.
    mutating func markPhonemes(_ range: Range<Int>, _ phonemes: String, alphabet: String?) {
        guard !range.isEmpty else { return }
        phonemeRuns.append(PhonemeRun(range: range, phonemes: phonemes, alphabet: alphabet))
    }

    /// Ends the current block: closes its segment and makes sure the next text starts after at
    /// least `separator`.
    mutating func endBlock(_ separator: Separator) {
        if let segment = openSegment {
            segments.append(TextSegment(range: segment.start..<scalars.count, elementPath: segment.origin.elementPath,
                                        anchor: segment.anchor, line: segment.origin.line))
            openSegment = nil
        }
        pendingSpace = false
        pendingSeparator = max(pendingSeparator, separator)
    }

    /// Closes the last block and resolves anchors that no text followed to the end of the text.
    mutating func finish() {
        endBlock(.paragraph)
        for id in pendingAnchors { anchors[id] = scalars.count }
        pendingAnchors.removeAll()
    }

    /// The text, handed over (`DocumentText` keeps it), leaving the builder empty.
    mutating func takeText() -> ScalarStore {
        let text = scalars
        scalars = ScalarStore()
        return text
    }

    /// The text from `start` to the end, whitespace as it is.
    func string(from start: Int) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[min(max(0, start), scalars.count)...])
        return String(view)
    }

    /// `range` without the separators around it.
    func trimmed(_ range: Range<Int>) -> Range<Int> {
        scalars.trimmedRange(range)
    }

    /// Whether the text from `start` to the end stops mid-sentence: it ends in a letter or digit,
    /// or a comma or semicolon (closing quotes and brackets aside), and is no all-capitals
    /// title. Such a block (a verse line, a list item) joins the next one of its kind with a
    /// line break instead of a paragraph break, so it is heard going on: a comma or semicolon is
    /// pause enough, and a bare line break is given one by the narrator (`EngineText`).
    ///
    ///     "April is the cruellest month, breeding"    true
    ///     "With a shower of rain; we stopped in the colonnade,"   true
    ///     "Dull roots with spring rain."              false: a sentence ends
    ///     "He said:", "“But I—”"                      false: what follows stands apart
    ///     "CHAPTER I"                                 false: a title
    ///     "* * *"                                     false: no words
    func endsMidSentence(from start: Int) -> Bool {
        var index = scalars.count
        let lower = max(0, start)
        while index > lower, ClausePunctuation.closingMarks.contains(scalars[index - 1]) { index -= 1 }
        guard index > lower else { return false }
        let last = scalars[index - 1]
        guard last.properties.isAlphabetic || last.properties.numericType != nil || Self.clauseMarks.contains(last) else {
            return false
        }
        var hasUpper = false
        for scalar in scalars[lower..<scalars.count] {
            if scalar.properties.isLowercase { return true }
            if scalar.properties.isUppercase { hasUpper = true }
        }
        return !hasUpper
    }

    /// Punctuation that ends a clause but not a sentence.
    static let clauseMarks: Set<Unicode.Scalar> = [",", ";", "，", "；", "、", "،", "؛"]
}
