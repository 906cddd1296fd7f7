/// Keeps the books on notes while `XHTMLTextExtractor` reads a document, and decides at the end
/// where each is read (`DocumentNotes`):
/// - A note reference (`epub:type="noteref"`, `role="doc-noteref"`, `annoref`, or a link that
///   looks like a note marker: `<sup><a href="#n3">3</a></sup>`) waits for the end of the
///   paragraph it stands in; its note is read there. A note referred to twice is read once, at
///   the first reference; a reference into another document is kept for the chapter to resolve.
/// - A note no reference in its document points at is read where it stood (after the paragraph
///   it stood in, if it stood inside one): never lost.
///
///     var notes = NoteCollector()
///     notes.reference("#n1", in: "OEBPS/c1.xhtml")        // in "…Son of man,*"
///     notes.paragraphEnded(at: 42, eventIndex: nil)       // the paragraph ends at 42
///     let n = notes.beginMoved(midParagraph: false, at: 42, eventIndex: nil)
///     notes.endMoved(n, id: "n1", range: 0..<16)
///     notes.finished(text: nil, isComplete: true).placements   // [offset 42: moved note 0]
struct NoteCollector {
    private enum Pending {
        case reference(path: String?, id: String)
        case orphan(Int)
    }

    private struct Raw {
        var offset: Int
        var what: Pending
        var eventIndex: Int?
    }

    /// Waiting for the end of the paragraph they stand in.
    private var waiting: [Pending] = []
    private var raw: [Raw] = []
    private var moved: [Range<Int>] = []
    private var byID: [String: DocumentNotes.Location] = [:]
    /// Ids the references met so far in this document point at: an `aside` with one is a note.
    private(set) var referencedIDs: Set<String> = []

    /// A reference by `href`, found in the document at `documentPath`. Links out of the book or
    /// without a fragment are no note references.
    mutating func reference(_ href: String, in documentPath: String) {
        guard case .inside(let target, let fragment?) = ArchivePath.resolve(href, from: documentPath),
              !fragment.isEmpty else { return }
        if target == documentPath {
            waiting.append(.reference(path: nil, id: fragment))
            referencedIDs.insert(fragment)
        } else {
            waiting.append(.reference(path: target, id: fragment))
        }
    }

    /// A note taken out of the flow starts; returns its index. `midParagraph`: it stands inside
    /// a paragraph, so where it stood means after that paragraph; otherwise at `offset`.
    mutating func beginMoved(midParagraph: Bool, at offset: Int, eventIndex: Int?) -> Int {
        let index = moved.count
        moved.append(0..<0)
        if midParagraph {
            waiting.append(.orphan(index))
        } else {
            raw.append(Raw(offset: offset, what: .orphan(index), eventIndex: eventIndex))
        }
        return index
    }

    mutating func endMoved(_ index: Int, id: String?, range: Range<Int>) {
        guard moved.indices.contains(index) else { return }
        moved[index] = range
        if let id, !range.isEmpty, byID[id] == nil { byID[id] = .moved(index) }
    }

    /// A note read where it stands (the table of contents points at it), with its range in the
    /// document's text, so references elsewhere can read it too.
    mutating func inFlow(id: String, range: Range<Int>) {
        if !range.isEmpty, byID[id] == nil { byID[id] = .inFlow(range) }
    }

    /// A paragraph of the document's text ended at `offset`: the notes waiting are read there.
    mutating func paragraphEnded(at offset: Int, eventIndex: Int?) {
        guard !waiting.isEmpty else { return }
        for pending in waiting { raw.append(Raw(offset: offset, what: pending, eventIndex: eventIndex)) }
        waiting.removeAll()
    }

    /// Where each note is read. `isComplete` is false for a document parsed only partway: a
    /// reference to a note not met yet then marks the notes unresolved.
    func finished(text: NotesText?, isComplete: Bool, movingNoteOffsets: (Int) -> Int = { $0 }) -> DocumentNotes {
        let movedRanges = moved.map { movingNoteOffsets($0.lowerBound)..<max(movingNoteOffsets($0.lowerBound), movingNoteOffsets($0.upperBound)) }
        var notes = DocumentNotes(text: text, moved: movedRanges, byID: byID)
        var unresolved = !isComplete && !waiting.isEmpty
        var referencedMoved: Set<Int> = []
        for entry in raw {
            guard case .reference(nil, let id) = entry.what else { continue }
            if case .moved(let index)? = byID[id] {
                referencedMoved.insert(index)
            } else if byID[id] == nil, !isComplete {
                unresolved = true
            }
        }
        var placed: Set<DocumentNotes.Location> = []
        var placedElsewhere: Set<String> = []
        for entry in raw {
            switch entry.what {
            case .reference(nil, let id):
                guard let location = byID[id], placed.insert(location).inserted else { continue }
                notes.placements.append(.init(offset: entry.offset, note: .here(location), eventIndex: entry.eventIndex))
            case .reference(let path?, let id):
                guard placedElsewhere.insert(path + "#" + id).inserted else { continue }
                notes.placements.append(.init(offset: entry.offset, note: .elsewhere(path: path, id: id),
                                              eventIndex: entry.eventIndex))
            case .orphan(let index):
                guard !referencedMoved.contains(index), !moved[index].isEmpty,
                      placed.insert(.moved(index)).inserted else { continue }
                notes.placements.append(.init(offset: entry.offset, note: .here(.moved(index)), eventIndex: entry.eventIndex,
                                              standsHere: true))
            }
        }
        notes.hasUnresolvedReferences = unresolved
        return notes
    }
}
