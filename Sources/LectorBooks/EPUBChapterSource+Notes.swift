/// Notes read out of their place (`BookReadingOptions.Notes`): a chapter's pieces of text are
/// split after each paragraph that refers to a note, and the note's text goes in between as a
/// piece of its own, led by "Note:" (or all of them go at the chapter's end). A note in another
/// document (an endnotes file, linear or not) is read from that document, parsed whole.
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
        for original in pieces {
            var piece = original
            if !piece.document.isComplete, piece.document.notes.hasUnresolvedReferences {
                // Parsed only partway: the whole document has the notes and paragraph ends.
                piece.document = try document(piece.document.path, through: nil, for: reading)
            }
            let lower = piece.range.lowerBound, upper = piece.range.upperBound
            var rest = piece
            for placement in piece.document.notes.placements
            where placement.offset > lower && placement.offset <= upper || (placement.offset == 0 && lower == 0) {
                guard placement.offset >= rest.range.lowerBound else { continue }   // in document order, always
                guard var note = try notePiece(placement.note, in: piece.document, reading: reading),
                      read.insert(note.key).inserted else { continue }
                note.piece.lead = baseOptions.labels.note
                note.piece.isNote = true
                if mode == .endOfChapter {
                    atEnd.append(note.piece)
                    continue
                }
                var before = rest
                before.range = rest.range.lowerBound..<placement.offset
                before.markupEnd = placement.eventIndex
                result.append(before)
                result.append(note.piece)
                rest.range = placement.offset..<rest.range.upperBound
                rest.markupStart = placement.eventIndex
            }
            result.append(rest)
        }
        return result + atEnd
    }

    /// The piece of text a note is, and a key that tells it from others (a note is read once).
    private func notePiece(_ note: DocumentNotes.Placement.Note, in document: DocumentText,
                           reading: Reading) throws(BookError) -> (piece: ChapterTextAssembler.Piece, key: String)? {
        switch note {
        case .here(let location):
            return piece(location, in: document).map { ($0, key(location, document.path)) }
        case .elsewhere(let path, let id):
            guard isReadableDocument(path) else { return nil }
            let other = try self.document(path, through: nil, for: reading)
            guard let location = other.notes.byID[id] else { return nil }
            return piece(location, in: other).map { ($0, key(location, path)) }
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

    private func key(_ location: DocumentNotes.Location, _ path: String) -> String {
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
