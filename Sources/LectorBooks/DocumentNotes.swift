/// A content document's notes, as `NoteCollector` found them: where each is read, and where its
/// text is. A note taken out of the flow (the default for footnotes and endnotes) has its text in
/// `text`, a document of its own made of the moved notes one after another; a note read where it
/// stands (one the table of contents points at, in a "Notes" chapter) is a range of the
/// document's own text. Chapters insert `placements` after the paragraph that ends at `offset`
/// (`EPUBChapterSource`), so the notes' words are part of `Chapter.text` like any other.
///
///     <p>Son of man,<a epub:type="noteref" href="#n1">*</a></p> … <aside epub:type="footnote" id="n1">Cf. Ezekiel 2:1.</aside>
///     // placements: [Placement(offset: 11, note: .moved(0), eventIndex: …)], moved: [0..<16] in text "Cf. Ezekiel 2:1."
struct DocumentNotes: Sendable {
    /// Where a note's text is.
    enum Location: Sendable, Hashable {
        /// `moved[index]` of `text`.
        case moved(Int)
        /// A range of the document's own text.
        case inFlow(Range<Int>)
    }

    /// A note to read after the paragraph ending at `offset` of the document's text.
    struct Placement: Sendable, Equatable {
        enum Note: Sendable, Equatable {
            case here(Location)
            /// A note in another document of the book, found when a chapter is assembled.
            case elsewhere(path: String, id: String)
        }

        var offset: Int
        var note: Note
        /// For the read-along markup: the index of the first event after the paragraph, where
        /// the chapter's markup is split around the note.
        var eventIndex: Int?
        /// Where the note stood, nothing in its document referring to it: a reference in another
        /// document may read it already (`EPUBChapterSource.notesReadAtReferences`).
        var standsHere = false
    }

    var text: NotesText?
    /// Each moved note's range in `text`, in document order.
    var moved: [Range<Int>] = []
    /// Note id → where its text is (notes with an id only).
    var byID: [String: Location] = [:]
    /// In document order.
    var placements: [Placement] = []
    /// A document parsed only partway has note references whose notes (or paragraph ends) it
    /// did not reach: a chapter that needs them reads the whole document.
    var hasUnresolvedReferences = false

    var isEmpty: Bool { placements.isEmpty && byID.isEmpty }

    /// Offsets moved by `moved`, as `AddressBrackets` moves everything else in the document.
    func movingOffsets(_ moved: (Int) -> Int) -> DocumentNotes {
        var result = self
        result.placements = placements.map {
            var placement = $0
            placement.offset = moved($0.offset)
            if case .here(.inFlow(let range)) = $0.note {
                placement.note = .here(.inFlow(moved(range.lowerBound)..<max(moved(range.lowerBound), moved(range.upperBound))))
            }
            return placement
        }
        result.byID = byID.mapValues { location in
            guard case .inFlow(let range) = location else { return location }
            return .inFlow(moved(range.lowerBound)..<max(moved(range.lowerBound), moved(range.upperBound)))
        }
        return result
    }
}
