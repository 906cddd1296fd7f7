import LectorCore

/// Cuts a chapter out of one or more documents' speakable text and builds its source map.
///
/// Each piece is trimmed of the blank lines around it; pieces are joined by a blank line; every
/// document segment the chapter covers becomes a `SourceSpan`, clipped to the chapter. A chapter
/// whose pieces hold no text at all (a "Part One" entry pointing at an empty page) speaks its
/// title instead, so no track is silent; its source map is then empty. The warnings of the
/// documents the pieces come from (see `DocumentText.warning`) become the chapter's.
///
///     let chapter = ChapterTextAssembler.chapter(index: 1, title: "II. A GAME OF CHESS",
///                                                pieces: [.init(document: doc, range: 5120..<9800)])
enum ChapterTextAssembler {
    struct Piece {
        var document: DocumentText
        var range: Range<Int>
        /// Words said before the piece's text that are not the book's ("Note: ").
        var lead: String?
        /// A note read out of its place: the read-along page shows it as one.
        var isNote = false
        /// Shown on the read-along page but not read (a note read at its reference already): no
        /// text of the chapter, so the offsets around it are as if it were not there.
        var isSilent = false
        /// For the read-along markup: the events to take, where a note splits a paragraph's
        /// piece (nil: found by `range`, see `ChapterMarkupAssembler`).
        var markupStart: Int?
        var markupEnd: Int?
        /// Where `document` starts in the whole document its spans name, when it is a stretch
        /// of it (a plain-text chapter laid out alone).
        var documentBase = 0

        init(document: DocumentText, range: Range<Int>, lead: String? = nil, isNote: Bool = false,
             markupStart: Int? = nil, markupEnd: Int? = nil, documentBase: Int = 0) {
            self.document = document
            self.range = range
            self.documentBase = documentBase
            self.lead = lead
            self.isNote = isNote
            self.markupStart = markupStart
            self.markupEnd = markupEnd
        }
    }

    /// Where a piece's text lands in the chapter: its trimmed `range` of the document starts at
    /// chapter offset `base` (after its lead, if it has one). Pieces with no text have no placement.
    struct Placement {
        var piece: Int
        var range: Range<Int>
        var base: Int
    }

    /// How the pieces' text is laid out in the chapter, the one rule the chapter's text and its
    /// read-along markup (`ChapterMarkupAssembler`) both follow: each piece trimmed, its lead and a
    /// space before it, joined by a blank line.
    static func placements(_ pieces: [Piece]) -> [Placement] {
        var placements: [Placement] = []
        var length = 0
        for (index, piece) in pieces.enumerated() {
            let range = piece.document.trimmed(piece.range)
            guard !range.isEmpty, !piece.isSilent else { continue }
            if length > 0 { length += 2 }
            length += leadScalars(piece).count
            placements.append(Placement(piece: index, range: range, base: length))
            length += range.count
        }
        return placements
    }

    /// "Note: " for a lead "Note:", nothing without one.
    static func leadScalars(_ piece: Piece) -> [Unicode.Scalar] {
        guard let lead = piece.lead, !lead.isEmpty else { return [] }
        return Array(lead.unicodeScalars) + [" "]
    }

    static func chapter(index: Int, title: String, pieces: [Piece]) -> Chapter {
        var spans: [SourceSpan] = []
        var languages: [LanguageRun] = []
        var phonemeRuns: [PhonemeRun] = []
        var warnings: [String] = []
        for piece in pieces {
            if let warning = piece.document.warning, !warnings.contains(warning) { warnings.append(warning) }
        }
        let placed = placements(pieces)
        // One span a segment: counted first, so the array is not doubled past them.
        spans.reserveCapacity(placed.reduce(0) { count, placement in
            let segments = pieces[placement.piece].document.segments
            return count + segments[firstSegment(endingAfter: placement.range.lowerBound, in: segments)...]
                .prefix { $0.range.lowerBound < placement.range.upperBound }.count
        })
        for placement in placed {
            let document = pieces[placement.piece].document
            let range = placement.range
            let base = placement.base
            var segmentIndex = firstSegment(endingAfter: range.lowerBound, in: document.segments)
            while segmentIndex < document.segments.count {
                let segment = document.segments[segmentIndex]
                guard segment.range.lowerBound < range.upperBound else { break }
                let clipped = segment.range.clamped(to: range)
                if !clipped.isEmpty {
                    let lower = base + clipped.lowerBound - range.lowerBound
                    spans.append(SourceSpan(textRange: lower..<(lower + clipped.count), documentPath: document.path,
                                            anchor: segment.anchor, elementPath: segment.elementPath,
                                            documentOffset: pieces[placement.piece].documentBase + clipped.lowerBound,
                                            sourceLine: segment.line))
                }
                segmentIndex += 1
            }
            for run in document.languages where run.range.overlaps(range) {
                let clipped = run.range.clamped(to: range)
                let lower = base + clipped.lowerBound - range.lowerBound
                languages.append(LanguageRun(range: lower..<(lower + clipped.count), language: run.language))
            }
            // Only whole elements: phonemes for part of a word would say the whole word.
            for run in document.phonemeRuns where range.contains(run.range.lowerBound) && run.range.upperBound <= range.upperBound {
                let lower = base + run.range.lowerBound - range.lowerBound
                phonemeRuns.append(PhonemeRun(range: lower..<(lower + run.range.count), phonemes: run.phonemes, alphabet: run.alphabet))
            }
        }
        let text = placed.isEmpty ? string(of: spokenTitle(title).scalars) : Self.text(of: placed, pieces)
        var chapter = Chapter(index: index, title: title, text: text, sourceMap: spans, warnings: warnings,
                              languageRuns: languages)
        chapter.pronunciation.phonemeRuns = phonemeRuns
        return chapter
    }

    /// The chapter's text as `placements` lays it out (each piece's lead, then its text, joined
    /// by a blank line), written in one allocation of its exact UTF-8 size straight from the
    /// documents: no copy of its scalars in between (9 MB more at the peak for a 10-MB chapter).
    static func text(of placed: [Placement], _ pieces: [Piece]) -> String {
        func forEachScalar(_ body: (Unicode.Scalar) -> Void) {
            for (position, placement) in placed.enumerated() {
                if position > 0 {
                    body("\n")
                    body("\n")
                }
                leadScalars(pieces[placement.piece]).forEach(body)
                let document = pieces[placement.piece].document
                for offset in placement.range { body(document.scalars[offset]) }
            }
        }
        var size = 0
        forEachScalar { size += UTF8.width($0) }
        return String(unsafeUninitializedCapacity: size) { buffer in
            var written = 0
            forEachScalar { scalar in
                for byte in UTF8.encode(scalar).unsafelyUnwrapped {
                    buffer[written] = byte
                    written += 1
                }
            }
            return written
        }
    }

    /// The scalars as a String in one allocation of its exact UTF-8 size (appending to a
    /// String grows it by doubling: old and new copy at once, for a chapter the size of a file).
    static func string(of scalars: ScalarStore) -> String {
        let size = scalars.reduce(0) { $0 + UTF8.width($1) }
        return String(unsafeUninitializedCapacity: size) { buffer in
            var written = 0
            for scalar in scalars {
                for byte in UTF8.encode(scalar).unsafelyUnwrapped {
                    buffer[written] = byte
                    written += 1
                }
            }
            return written
        }
    }

    /// What a chapter with no text of its own speaks: its title (whitespace collapsed), and
    /// where in that the title's run is.
    static func spokenTitle(_ title: String) -> (scalars: ScalarStore, run: Range<Int>?) {
        var builder = SpeakableTextBuilder()
        let run = builder.append(title, origin: { .init(elementPath: nil, line: 0) })
        builder.finish()
        return (builder.scalars, run)
    }

    /// Binary search: the first segment whose end is past `offset`.
    private static func firstSegment(endingAfter offset: Int, in segments: [TextSegment]) -> Int {
        var low = 0, high = segments.count
        while low < high {
            let middle = (low + high) / 2
            if segments[middle].range.upperBound <= offset { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Words the pieces hold, to tell a real preface from a bare title page.
    static func wordCount(_ pieces: [Piece]) -> Int {
        pieces.reduce(0) { $0 + ($1.isSilent ? 0 : $1.document.wordCount(in: $1.range)) }
    }
}
