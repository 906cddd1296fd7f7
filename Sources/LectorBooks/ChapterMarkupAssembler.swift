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
        let placed = Dictionary(uniqueKeysWithValues: placements.map { ($0.piece, $0) })
        var index = 0
        while index < pieces.count {
            // A silent piece is cut together with the pieces of its document it lies between, so
            // the elements around it (a notes list) are not closed and opened again.
            var end = index + 1
            while end < pieces.count, continues(pieces[end - 1], pieces[end]) { end += 1 }
            let group = index..<end
            index = end
            let parts: [Part] = group.compactMap { member in
                let piece = pieces[member]
                if piece.isSilent { return Part(range: piece.document.trimmed(piece.range), base: nil) }
                return placed[member].map { Part(range: $0.range, base: $0.base) }
            }
            guard !parts.isEmpty else { continue }
            let piece = pieces[group.lowerBound], last = pieces[group.upperBound - 1]
            let outside = writer.depth
            if piece.isNote {
                // Read here, out of its place: shown as a note, with the label the listener hears.
                writer.open(OutputElement(tag: "aside", attributes: [(name: "class", value: "note")]))
                if let lead = piece.lead, !piece.isSilent { writer.shown(lead + " ") }
            }
            defer { writer.closeAll(downTo: outside) }
            if let markup = piece.document.markup {
                cut(markup, from: piece, to: last, parts: parts, into: &writer, imageID: imageID)
            } else {
                // Not recorded (never the case for documents read for markup): one paragraph.
                writer.open(OutputElement(tag: "p"))
                for part in parts {
                    if let base = part.base {
                        writer.spoken(base..<(base + part.range.count))
                    } else {
                        writer.shown(piece.document.string(in: part.range))
                    }
                }
                writer.closeAll(downTo: outside)
            }
        }
        return ChapterMarkup(index: chapter.index, html: writer.html, resources: writer.resources)
    }

    /// Part of a piece's document range: its trimmed range, and the chapter offset it is placed
    /// at, nil for a silent piece (shown, not spoken).
    private struct Part {
        var range: Range<Int>
        var base: Int?
    }

    /// Whether `next` goes on where `piece` stops, in the same document, one of them silent.
    private static func continues(_ piece: ChapterTextAssembler.Piece, _ next: ChapterTextAssembler.Piece) -> Bool {
        (piece.isSilent || next.isSilent) && !piece.isNote && !next.isNote
            && piece.document.path == next.document.path && piece.document.count == next.document.count
            && piece.range.upperBound == next.range.lowerBound && piece.markupEnd == nil && next.markupStart == nil
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

    /// The events of pieces `piece` through `last` of one document, each spoken run written as
    /// the parts it falls in say: spoken at its chapter offset, or shown only.
    private static func cut(_ markup: DocumentMarkup, from piece: ChapterTextAssembler.Piece,
                            to last: ChapterTextAssembler.Piece, parts: [Part], into writer: inout MarkupHTMLWriter,
                            imageID: (String) -> String?) {
        let events = markup.events
        let lower = max(0, piece.range.lowerBound)
        // A piece from the document's start takes what comes before its first words too.
        var first = piece.markupStart
            ?? (lower == 0 ? 0 : boundary(at: lower, in: piece.document) ?? markup.firstEvent(atOrAfter: lower))
        // The last piece of a whole document also takes what stands after its text (closes,
        // notes); a document read only as far as the next chapter's anchor stops before it.
        let end = min(events.count, last.markupEnd
            ?? (last.range.upperBound >= last.document.count && last.document.isComplete ? events.count
                : boundary(at: last.range.upperBound, in: last.document)
                    ?? markup.firstEvent(atOrAfter: last.range.upperBound)))
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
        var nextPart = 0
        for event in events[first..<max(first, end)] {
            switch event.content {
            case .open(let element), .void(let element):
                writer.open(element)
            case .close:
                if writer.depth > depth { writer.close() }
            case .spoken(let run):
                // Runs and parts both ascend: parts wholly before this run are done with.
                while nextPart < parts.count, parts[nextPart].range.upperBound <= run.lowerBound { nextPart += 1 }
                for part in parts[nextPart...] {
                    guard part.range.lowerBound < run.upperBound else { break }
                    let clipped = run.clamped(to: part.range)
                    guard !clipped.isEmpty else { continue }
                    if let base = part.base {
                        let offset = base + clipped.lowerBound - part.range.lowerBound
                        writer.spoken(offset..<(offset + clipped.count))
                    } else {
                        writer.shown(piece.document.string(in: clipped))
                    }
                }
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
