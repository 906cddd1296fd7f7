import Foundation

/// Notes read out of their place (`BookReadingOptions.Notes`): a chapter's pieces of text are
/// split after each paragraph that refers to a note, and the note's text goes in between as a
/// piece of its own, led by "Note:" (or all of them go at the chapter's end). A note in another
/// document (an endnotes file, linear or not) is read from that document, parsed whole. Where
/// such a note stands in the reading order (a notes section), it is not read again: its range is
/// a silent piece, shown on the read-along page only (`notesReadAtReferences`).
///
///     pieces [c1.xhtml 0..<900]; a note placed at 412 (the end of the paragraph referring to it)
///     → [c1.xhtml 0..<412] [notes of c1.xhtml 0..<60, lead "Note:"] [c1.xhtml 412..<900]
extension EPUBChapterSource {
    func withNotes(_ pieces: [ChapterTextAssembler.Piece],
                   for reading: Reading = .speech) throws(BookError) -> [ChapterTextAssembler.Piece] {
        let mode = baseOptions.reading.notes
        guard mode != .skip else { return pieces }
        var result: [ChapterTextAssembler.Piece] = []
        var atEnd: [ChapterTextAssembler.Piece] = []
        var read: Set<String> = []
        var readElsewhere: Set<String>?
        for original in pieces {
            var piece = original
            if !piece.document.isComplete, piece.document.notes.hasUnresolvedReferences {
                // Parsed only partway: the whole document has the notes and paragraph ends.
                piece.document = try document(piece.document.path, through: nil, for: reading)
            }
            if readElsewhere == nil, Self.mayHoldNotesReadElsewhere(piece) { readElsewhere = notesReadAtReferences() }
            let silent = readElsewhere.map { Self.silentRanges(in: piece, readElsewhere: $0) } ?? []
            let lower = piece.range.lowerBound, upper = piece.range.upperBound
            var rest = piece
            for placement in piece.document.notes.placements
            where placement.offset > lower && placement.offset <= upper || (placement.offset == 0 && lower == 0) {
                guard placement.offset >= rest.range.lowerBound else { continue }   // in document order, always
                // A reference inside a note not read here is not read here either.
                guard !Self.contains(placement.offset, in: silent),
                      var note = try notePiece(placement.note, in: piece.document, reading: reading) else { continue }
                note.piece.isNote = true
                if placement.standsHere, readElsewhere?.contains(note.key) == true {
                    note.piece.isSilent = true   // read at its reference: shown where it stands only
                } else {
                    guard read.insert(note.key).inserted else { continue }
                    note.piece.lead = baseOptions.labels.note
                    if mode == .endOfChapter {
                        atEnd.append(note.piece)
                        continue
                    }
                }
                var before = rest
                before.range = rest.range.lowerBound..<placement.offset
                before.markupEnd = placement.eventIndex
                Self.append(before, cutting: silent, to: &result)
                result.append(note.piece)
                rest.range = placement.offset..<rest.range.upperBound
                rest.markupStart = placement.eventIndex
            }
            Self.append(rest, cutting: silent, to: &result)
        }
        return result + atEnd
    }

    /// Keys (`key(_:_:)`) of the notes some reading-order document refers to, each read after
    /// that reference: where such a note stands (a notes section in the reading order) it is
    /// shown, not read again. Decided by the book's references, not by which chapters were
    /// loaded; found once, from every document parsed whole (a reference inside a note read where
    /// it stands does not count: it is read only if that note is).
    func notesReadAtReferences() -> Set<String> {
        readAtReferences.keys {
            var found: Set<String> = []
            var elsewhere: [(path: String, id: String)] = []
            var byID: [String: [String: DocumentNotes.Location]] = [:]
            let inOrder = Set(readingOrder)
            for path in readingOrder {
                // A document that cannot be read is no chapter: its references are not read.
                guard let notes = try? wholeDocument(path).notes, !notes.isEmpty else { continue }
                if !notes.byID.isEmpty { byID[path] = notes.byID }
                let inNotes = Self.merged(notes.byID.values.compactMap {
                    if case .inFlow(let range) = $0 { range } else { nil }
                })
                for placement in notes.placements where !placement.standsHere && !Self.contains(placement.offset, in: inNotes) {
                    switch placement.note {
                    case .here(let location):
                        found.insert(Self.key(location, path))
                    case .elsewhere(let target, let id):
                        if inOrder.contains(target) { elsewhere.append((target, id)) }
                    }
                }
            }
            for reference in elsewhere {
                if let location = byID[reference.path]?[reference.id] { found.insert(Self.key(location, reference.path)) }
            }
            return found
        }
    }

    /// Whether a piece holds a note that may be read at a reference elsewhere: one read where it
    /// stands, or one moved out of the flow that nothing in its document refers to.
    private static func mayHoldNotesReadElsewhere(_ piece: ChapterTextAssembler.Piece) -> Bool {
        let notes = piece.document.notes, range = piece.range
        return notes.byID.values.contains { if case .inFlow(let note) = $0 { note.overlaps(range) } else { false } }
            || notes.placements.contains { $0.standsHere && range.lowerBound <= $0.offset && $0.offset <= range.upperBound }
    }

    /// The ranges of the notes read where they stand in `piece` that are read at a reference
    /// elsewhere: sorted, merged, within the piece.
    private static func silentRanges(in piece: ChapterTextAssembler.Piece, readElsewhere: Set<String>) -> [Range<Int>] {
        let path = piece.document.path
        return merged(piece.document.notes.byID.values.compactMap { location in
            guard case .inFlow(let note) = location, note.overlaps(piece.range),
                  readElsewhere.contains(key(location, path)) else { return nil }
            return note.clamped(to: piece.range)
        })
    }

    /// Sorted, overlapping and touching ranges joined.
    private static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, range.lowerBound <= last.upperBound {
                result[result.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }

    /// Whether a paragraph ending at `offset` is inside one of `ranges` (sorted, disjoint): a
    /// note's last paragraph ends where the note does.
    private static func contains(_ offset: Int, in ranges: [Range<Int>]) -> Bool {
        var low = 0, high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].lowerBound < offset { low = middle + 1 } else { high = middle }
        }
        return low > 0 && offset <= ranges[low - 1].upperBound
    }

    /// `piece`, the ranges of notes read elsewhere (`silent`) cut out of it as silent pieces.
    private static func append(_ piece: ChapterTextAssembler.Piece, cutting silent: [Range<Int>],
                               to result: inout [ChapterTextAssembler.Piece]) {
        var cuts: [(range: Range<Int>, isSilent: Bool)] = []
        var lower = piece.range.lowerBound
        for note in silent {
            let cut = note.clamped(to: piece.range)
            guard !cut.isEmpty, cut.lowerBound >= lower else { continue }
            if cut.lowerBound > lower { cuts.append((lower..<cut.lowerBound, false)) }
            cuts.append((cut, true))
            lower = cut.upperBound
        }
        guard !cuts.isEmpty else {
            result.append(piece)
            return
        }
        if lower < piece.range.upperBound { cuts.append((lower..<piece.range.upperBound, false)) }
        for (index, cut) in cuts.enumerated() {
            var part = piece
            part.range = cut.range
            part.isSilent = cut.isSilent
            // The events between the cuts are found by offset (`ChapterMarkupAssembler`).
            if index > 0 { part.markupStart = nil }
            if index < cuts.count - 1 { part.markupEnd = nil }
            result.append(part)
        }
    }

    /// The piece of text a note is, and a key that tells it from others (a note is read once).
    private func notePiece(_ note: DocumentNotes.Placement.Note, in document: DocumentText,
                           reading: Reading) throws(BookError) -> (piece: ChapterTextAssembler.Piece, key: String)? {
        switch note {
        case .here(let location):
            return piece(location, in: document).map { ($0, Self.key(location, document.path)) }
        case .elsewhere(let path, let id):
            guard isReadableDocument(path) else { return nil }
            let other = try self.document(path, through: nil, for: reading)
            guard let location = other.notes.byID[id] else { return nil }
            return piece(location, in: other).map { ($0, Self.key(location, path)) }
        }
    }

    private func piece(_ location: DocumentNotes.Location, in document: DocumentText) -> ChapterTextAssembler.Piece? {
        switch location {
        case .moved(let index):
            guard let text = document.notes.text, document.notes.moved.indices.contains(index) else { return nil }
            return .init(document: text.document, range: document.notes.moved[index])
        case .inFlow(let range):
            return .init(document: document, range: range)
        }
    }

    private static func key(_ location: DocumentNotes.Location, _ path: String) -> String {
        switch location {
        case .moved(let index): return "\(path)#moved\(index)"
        case .inFlow(let range): return "\(path)#\(range.lowerBound)-\(range.upperBound)"
        }
    }

    /// A content document of this book that may hold notes: an XHTML item of the manifest that
    /// the archive has.
    private func isReadableDocument(_ path: String) -> Bool {
        guard archive.contains(path), let item = manifest.first(where: { $0.path == path }) else { return false }
        return item.isXHTML || [".xhtml", ".html", ".htm"].contains { path.lowercased().hasSuffix($0) }
    }
}

/// The keys of `EPUBChapterSource.notesReadAtReferences`, found once and shared by the copies of
/// a source with one reading order; a second chapter asking meanwhile waits for the first.
final class NotesReadAtReferences: @unchecked Sendable {
    private var found: Set<String>?
    private let lock = NSLock()

    func keys(finding: () -> Set<String>) -> Set<String> {
        lock.lock()
        defer { lock.unlock() }
        if let found { return found }
        let keys = finding()
        found = keys
        return keys
    }
}
