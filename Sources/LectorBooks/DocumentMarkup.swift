/// What a content document looks like on the read-along page, as a flat list of events beside
/// its speakable text (`DocumentText.markup`), recorded only when asked for
/// (`XHTMLTextExtractor.Options.recordsMarkup`).
///
/// Spoken runs are ranges of the document's text rather than copies of it, so the page's text is
/// the speakable text by construction; everything else is shown only. Each event carries the
/// text position it stands at (where the next spoken character lands), ascending, so a chapter
/// cuts its events out by offsets the way `ChapterTextAssembler` cuts its text:
///
///     <p>It was <em>dark</em><sup>3</sup>.</p>       text "It was dark."
///     open p @0 · spoken 0..<6 @0 · open em @7 · shown " " @7 · spoken 7..<11 @7 · close @11
///     · marker "3" @11 · spoken 11..<12 @11 · close @12
struct DocumentMarkup: Sendable, Equatable {
    enum Content: Sendable, Equatable {
        /// An allowlisted element, already mapped (`<a>` is a `span`, `<article>` a `section`).
        case open(OutputElement)
        /// Closes the latest `open` still open.
        case close
        /// An element without content or end tag: `<br/>`, `<hr/>`.
        case void(OutputElement)
        /// Unicode scalars of the document's speakable text.
        case spoken(Range<Int>)
        /// Text shown but not spoken: the whitespace between runs, so words do not run together.
        case shown(String)
        /// A note reference left out of the speech (`<sup>3</sup>`), shown as a superscript.
        case marker(String)
        /// A footnote or endnote left out of the speech, shown where it stood, one string a paragraph.
        case note([String])
        /// An image: its archive path, resolved against the document, and its `alt` text.
        case image(path: String, alt: String?)
    }

    struct Event: Sendable, Equatable {
        /// Scalar offset in the document's speakable text: a run's start, or where the next
        /// spoken character will land.
        var position: Int
        var content: Content
        /// Index of the `open` event of the innermost element open just before this event (for
        /// a `close`, the element it closes), -1 at the top: what a chapter starting here opens
        /// again, found in as many steps as the element is deep.
        var enclosing: Int
    }

    var events: [Event] = []
    /// For each id the table of contents points at in this document: the index of the first
    /// event recorded after its element started. What stands after a chapter's last words (its
    /// footnotes, a closing figure) has the same text position as the next chapter's first
    /// words; this says which side of the chapter start it stands on.
    var anchorEvents: [String: Int] = [:]

    /// Offsets changed after extraction (`AddressBrackets` deleting scalars): positions and runs
    /// move with `moved`, which must not decrease. A run that held only deleted scalars is left
    /// empty (not removed: `enclosing` counts events).
    func moved(_ moved: (Int) -> Int) -> DocumentMarkup {
        var result = self
        for index in result.events.indices {
            let event = events[index]
            if case .spoken(let range) = event.content {
                let lower = moved(range.lowerBound)
                result.events[index].content = .spoken(lower..<max(lower, moved(range.upperBound)))
            }
            result.events[index].position = moved(event.position)
        }
        return result
    }

    /// The elements open just before event `index`, outermost first.
    func openElements(before index: Int) -> [OutputElement] {
        guard events.indices.contains(index) else { return [] }
        var elements: [OutputElement] = []
        var enclosing = events[index].enclosing
        while events.indices.contains(enclosing), case .open(let element) = events[enclosing].content,
              elements.count < HTMLDocumentParser.maximumDepth {
            elements.append(element)
            enclosing = events[enclosing].enclosing
        }
        return elements.reversed()
    }

    /// The first event at or after `position` (events are in ascending position).
    func firstEvent(atOrAfter position: Int) -> Int {
        var low = 0, high = events.count
        while low < high {
            let middle = (low + high) / 2
            if events[middle].position < position { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
