/// Cuts a chapter's read-along markup out of its documents' `DocumentMarkup`, following the
/// chapter's text exactly (`ChapterTextAssembler.placements`: each piece trimmed, joined by a
/// blank line), so a run at document offset d of a piece placed at `base` is `data-o` =
/// `base + d - range.lowerBound`, and its text is read back from the chapter's text.
///
/// A piece takes the events standing in its untrimmed range; where a bound is a chapter's anchor,
/// the events at that offset are split where the anchor's element starts, so a chapter's closing
/// footnotes stay with it. The elements open where the piece starts are opened again first,
/// closes of elements the piece did not open are dropped, and what is open at its end is closed:
///
///     <section id="c1"><p>One.</p><p id="c2">Two.</p></section>     chapter c2, range 6..<10
///     → <section><p><span data-o="0">Two.</span></p></section>
///
/// A chapter with no text of its own shows its title as it speaks it:
/// `<h1><span data-o="0">Title</span></h1>`.
enum ChapterMarkupAssembler {
    /// `imageID` names the manifest item of an image's archive path, nil when the page may not
    /// show it.
    static func markup(of chapter: Chapter, pieces: [ChapterTextAssembler.Piece],
                       imageID: (String) -> String?) -> ChapterMarkup {
        var writer = MarkupHTMLWriter(text: Array(chapter.text.unicodeScalars))
        let placements = ChapterTextAssembler.placements(pieces)
        if placements.isEmpty {
            writer.open(OutputElement(tag: "h1"))
            if let run = ChapterTextAssembler.spokenTitle(chapter.title).run { writer.spoken(run) }
            writer.closeAll()
        }
        for placement in placements {
            let piece = pieces[placement.piece]
            let outside = writer.depth
            if piece.isNote {
                // Read here, out of its place: shown as a note, with the label the listener hears.
                writer.open(OutputElement(tag: "aside", attributes: [(name: "class", value: "note")]))
                if let lead = piece.lead { writer.shown(lead + " ") }
            }
            defer { writer.closeAll(downTo: outside) }
            if let markup = piece.document.markup {
                cut(markup, piece: piece, placement: placement, into: &writer, imageID: imageID)
            } else {
                // Not recorded (never the case for documents read for markup): one paragraph.
                writer.open(OutputElement(tag: "p"))
                writer.spoken(placement.base..<(placement.base + placement.range.count))
                writer.closeAll(downTo: outside)
            }
        }
        return ChapterMarkup(index: chapter.index, html: writer.html, resources: writer.resources)
    }

    /// Where the earliest chapter anchor at text offset `offset` starts in the events, if one does.
    private static func boundary(at offset: Int, in document: DocumentText) -> Int? {
        guard let markup = document.markup else { return nil }
        var earliest: Int?
        for (id, index) in markup.anchorEvents where document.anchors[id] == offset {
            earliest = min(earliest ?? index, index)
        }
        return earliest
    }

    private static func cut(_ markup: DocumentMarkup, piece: ChapterTextAssembler.Piece,
                            placement: ChapterTextAssembler.Placement, into writer: inout MarkupHTMLWriter,
                            imageID: (String) -> String?) {
        let events = markup.events
        let lower = max(0, piece.range.lowerBound)
        // A piece from the document's start takes what comes before its first words too.
        var first = piece.markupStart
            ?? (lower == 0 ? 0 : boundary(at: lower, in: piece.document) ?? markup.firstEvent(atOrAfter: lower))
        // The last piece of a whole document also takes what stands after its text (closes,
        // notes); a document read only as far as the next chapter's anchor stops before it.
        let end = min(events.count, piece.markupEnd
            ?? (piece.range.upperBound >= piece.document.count && piece.document.isComplete ? events.count
                : boundary(at: piece.range.upperBound, in: piece.document)
                    ?? markup.firstEvent(atOrAfter: piece.range.upperBound)))
        first = min(first, events.count)
        guard first < end else { return }
        // A note read out of its place stands in its own aside: its old surroundings stay away.
        var ancestors = piece.isNote ? [] : markup.openElements(before: first)
        // Closes standing where the piece starts end what the text before it showed.
        while first < end, case .close = events[first].content, events[first].position == lower, !ancestors.isEmpty {
            ancestors.removeLast()
            first += 1
        }
        let depth = writer.depth
        for element in ancestors { writer.open(element) }
        for event in events[first..<max(first, end)] {
            switch event.content {
            case .open(let element), .void(let element):
                writer.open(element)
            case .close:
                if writer.depth > depth { writer.close() }
            case .spoken(let run):
                let clipped = run.clamped(to: placement.range)
                guard !clipped.isEmpty else { continue }
                let offset = placement.base + clipped.lowerBound - placement.range.lowerBound
                writer.spoken(offset..<(offset + clipped.count))
            case .shown(let text):
                writer.shown(text)
            case .marker(let text):
                writer.marker(text)
            case .note(let paragraphs):
                writer.note(paragraphs)
            case .image(let path, let alt):
                if let id = imageID(path) { writer.image(id: id, alt: alt) }
            }
        }
        writer.closeAll(downTo: depth)
    }
}
