/// Accumulates speakable text the way a listener should hear it, for XHTML and plain text alike.
///
/// Callers feed raw text runs and say where blocks end; the builder collapses whitespace, drops
/// invisible characters (soft hyphens, zero-width spaces), separates paragraphs with a blank line
/// and lines with a newline, and ends a block that has no closing punctuation with a period so
/// espeak-ng pauses there instead of running a heading into the next sentence:
///
///     var builder = SpeakableTextBuilder()
///     builder.append("  I. THE BURIAL\n  OF THE DEAD ", context: context)
///     builder.endBlock(.paragraph)
///     builder.append("April is the cruellest month, breeding", context: context)
///     builder.endBlock(.paragraph)
///     // "I. THE BURIAL OF THE DEAD.\n\nApril is the cruellest month, breeding."
///
/// A block already ending in `. ! ? : ; … ,` (or the CJK 。！？；：，、), possibly followed by
/// closing quotes or brackets, gets no period. A comma counts because espeak-ng pauses at it too,
/// and `breeding,.` would read oddly in verse.
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

    private(set) var scalars: [Unicode.Scalar] = []
    private(set) var segments: [TextSegment] = []
    private(set) var anchors: [String: Int] = [:]
    private var pendingAnchors: [String] = []
    private var latestAnchor: String?
    private var pendingSeparator: Separator = .none
    private var pendingSpace = false
    private var openSegment: (start: Int, origin: Origin, anchor: String?)?

    static let terminalPunctuation: Set<Unicode.Scalar> = [
        ".", "!", "?", ":", ";", "…", ",", "。", "！", "？", "；", "：", "，", "、", "‼", "⁇", "⁈", "⁉", "؟", "।",
    ]
    static let closingMarks: Set<Unicode.Scalar> = ["\"", "'", "”", "’", "»", "›", ")", "]", "}", "」", "』", "）"]
    /// Characters with no sound and no width: soft hyphen, zero-width space, word joiner, BOM.
    static let invisible: Set<Unicode.Scalar> = ["\u{00AD}", "\u{200B}", "\u{2060}", "\u{FEFF}"]

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
            // ASCII first: the Unicode property lookups and the Set hash cost ~100 ns a scalar.
            let isSpaceOrControl: Bool
            if scalar.value < 0x80 {
                isSpaceOrControl = scalar.value <= 0x20 || scalar.value == 0x7F
            } else {
                if Self.invisible.contains(scalar) { continue }
                isSpaceOrControl = scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
            }
            if isSpaceOrControl {
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

    /// Ends the current block: closes its segment (adding the pause period when `pause`) and
    /// makes sure the next text starts after at least `separator`.
    mutating func endBlock(_ separator: Separator, pause: Bool = true) {
        if let segment = openSegment {
            if pause, needsPausePeriod() { scalars.append(".") }
            segments.append(TextSegment(range: segment.start..<scalars.count, elementPath: segment.origin.elementPath,
                                        anchor: segment.anchor, line: segment.origin.line))
            openSegment = nil
        }
        pendingSpace = false
        pendingSeparator = max(pendingSeparator, separator)
    }

    /// Closes the last block and resolves anchors that no text followed to the end of the text.
    /// `pause: false` when the text is cut short mid-document, so the prefix stays identical to
    /// the whole document's text (no period where the block would have gone on).
    mutating func finish(pause: Bool = true) {
        endBlock(.paragraph, pause: pause)
        for id in pendingAnchors { anchors[id] = scalars.count }
        pendingAnchors.removeAll()
    }

    private func needsPausePeriod() -> Bool {
        var index = scalars.count - 1
        let start = openSegment?.start ?? 0
        while index >= start, Self.closingMarks.contains(scalars[index]) { index -= 1 }
        guard index >= start else { return false }
        return !Self.terminalPunctuation.contains(scalars[index])
    }
}
