import LectorCore

/// Writes a document's `DocumentMarkup` while its speakable text is built: the extractor (or the
/// plain-text layout) says what it opens, closes, speaks and leaves out, with the text position
/// it is at, and the recorder keeps the events balanced and in order.
///
/// What it decides itself:
/// - The whitespace the builder put between two runs (a space, a line break) is shown, so
///   `It was <em>dark</em>` does not read "It wasdark" on the page; not where a block starts or
///   ends between them, which separates them already.
/// - Runs that follow each other with nothing but a space between are one run: libxml2 hands
///   text over in chunks, and "echt deutsch." is one stretch of text, not two.
/// - An inline element with nothing inside (`<a name="p12"></a>`) is not recorded.
/// - A note left out of the speech is shown where an `<aside>` may stand: one found inside a
///   paragraph or a heading waits until that closes, so the page's HTML parser does not split
///   the paragraph around it.
///
///     var recorder = MarkupRecorder()
///     recorder.open(OutputElement(tag: "p"), at: 0)
///     recorder.spoken(builder.append("Hello", origin: origin), in: builder.scalars)
///     recorder.close(at: builder.nextTextOffset)
struct MarkupRecorder {
    private(set) var markup = DocumentMarkup()
    private var openTags: [String] = []
    /// The index of each open element's `open` event, innermost last.
    private var openEvents: [Int] = []
    private var lastRunEnd = 0
    /// A block element opened or closed since the last run: no whitespace needs showing.
    private var blockSinceLastRun = false
    /// A chapter may start between the last run and the next: they stay two runs.
    private var anchorSinceLastRun = false
    private var pendingNotes: [[String]] = []
    /// The paragraphs of the note (or note reference) being collected, the last one still growing.
    private var note: [String]?
    private var noteIsMarker = false
    /// Elements inside the note being collected that are not shown either (page numbers, scripts).
    var hiddenInNote = 0

    /// Where an `<aside>` may stand in HTML: at the top, or in an element holding flow content.
    static let flowContainers: Set<String> = [
        "div", "section", "blockquote", "li", "dd", "td", "th", "figure", "figcaption", "caption",
    ]

    /// Inline elements show nothing without content; empty blocks stay (cells and items shape
    /// tables and lists, and any block separates the text around it).
    static let droppedWhenEmpty = OutputElement.phrasingTags

    var isCollectingNote: Bool { note != nil }

    mutating func open(_ element: OutputElement, at position: Int) {
        append(.open(element), at: position)
        openTags.append(element.tag)
        openEvents.append(markup.events.count - 1)
        if !OutputElement.phrasingTags.contains(element.tag) { blockSinceLastRun = true }
    }

    mutating func close(at position: Int) {
        guard let tag = openTags.popLast() else { return }
        if let last = markup.events.last, case .open = last.content, Self.droppedWhenEmpty.contains(tag) {
            markup.events.removeLast()   // `<a name="p12"></a>`: nothing to show
            openEvents.removeLast()
            return
        }
        append(.close, at: position)
        openEvents.removeLast()
        if !OutputElement.phrasingTags.contains(tag) { blockSinceLastRun = true }
        if !pendingNotes.isEmpty, canPlaceNote { flushNotes(at: position) }
    }

    /// A void element: `<br/>`, `<hr/>`.
    mutating func void(_ element: OutputElement, at position: Int) {
        append(.void(element), at: position)
        blockSinceLastRun = true
    }

    /// A run `SpeakableTextBuilder.append` reported (nil when it added nothing).
    mutating func spoken(_ run: Range<Int>?, in scalars: ScalarStore) {
        guard let run else { return }
        if !anchorSinceLastRun, let last = markup.events.last, case .spoken(let previous) = last.content,
           previous.upperBound == lastRunEnd,
           run.lowerBound == lastRunEnd || (run.lowerBound == lastRunEnd + 1 && scalars[lastRunEnd] == " ") {
            markup.events[markup.events.count - 1].content = .spoken(previous.lowerBound..<run.upperBound)
            lastRunEnd = run.upperBound
            return
        }
        if run.lowerBound > lastRunEnd, !blockSinceLastRun {
            // Only separators lie between two runs of one block: at most two scalars.
            let gap = scalars[max(lastRunEnd, run.lowerBound - 4)..<run.lowerBound]
            if gap.contains("\n") {
                shown("\n", at: run.lowerBound)
            } else if gap.contains(where: { $0.properties.isWhitespace }) {
                shown(" ", at: run.lowerBound)
            }
        }
        append(.spoken(run), at: run.lowerBound)
        lastRunEnd = run.upperBound
        blockSinceLastRun = false
        anchorSinceLastRun = false
    }

    /// An element with an id the table of contents points at starts here (see
    /// `DocumentMarkup.anchorEvents`).
    mutating func markAnchor(_ id: String) {
        if markup.anchorEvents[id] == nil { markup.anchorEvents[id] = markup.events.count }
        anchorSinceLastRun = true
    }

    mutating func shown(_ text: String, at position: Int) {
        append(.shown(text), at: position)
    }

    mutating func marker(_ text: String, at position: Int) {
        let shownText = Self.collapsed(text)
        guard !shownText.isEmpty else { return }
        append(.marker(shownText), at: position)
    }

    mutating func image(path: String, alt: String?, at position: Int) {
        let alt = alt.map { MarkupElement.capped(Self.collapsed($0)) }
        append(.image(path: path, alt: alt), at: position)
    }

    // MARK: Notes left out of the speech

    /// `asMarker`: a note reference the extractor skips (`epub:type="noteref"`), shown as one.
    mutating func beginNote(asMarker: Bool = false) {
        note = [""]
        noteIsMarker = asMarker
        hiddenInNote = 0
    }

    mutating func noteText(_ text: String) {
        guard hiddenInNote == 0, var paragraphs = note else { return }
        note = nil   // appended in place, not copied
        paragraphs[paragraphs.count - 1] += text
        note = paragraphs
    }

    /// A block inside the note: what follows is a new paragraph.
    mutating func noteBreak() {
        guard hiddenInNote == 0, let paragraphs = note, paragraphs.last?.isEmpty == false else { return }
        note?.append("")
    }

    mutating func endNote(at position: Int) {
        guard let paragraphs = note else { return }
        note = nil
        if noteIsMarker {
            marker(paragraphs.joined(separator: " "), at: position)
            return
        }
        let shownParagraphs = paragraphs.map(Self.collapsed).filter { !$0.isEmpty }
        guard !shownParagraphs.isEmpty else { return }
        pendingNotes.append(shownParagraphs)
        if canPlaceNote { flushNotes(at: position) }
    }

    /// The end of the document: notes still waiting are shown here.
    mutating func finish(at position: Int) {
        flushNotes(at: position)
    }

    private mutating func append(_ content: DocumentMarkup.Content, at position: Int) {
        markup.events.append(.init(position: position, content: content, enclosing: openEvents.last ?? -1))
    }

    private var canPlaceNote: Bool {
        openTags.last.map(Self.flowContainers.contains) ?? true
    }

    private mutating func flushNotes(at position: Int) {
        for paragraphs in pendingNotes {
            append(.note(paragraphs), at: position)
            blockSinceLastRun = true
        }
        pendingNotes.removeAll()
    }

    /// Whitespace collapsed and trimmed, control and invisible characters dropped: shown text
    /// follows the same rules as spoken text.
    static func collapsed(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if SpeakableTextBuilder.invisible.contains(scalar) { continue }
            if scalar.properties.isWhitespace || scalar.properties.generalCategory == .control {
                pendingSpace = !result.isEmpty
                continue
            }
            if pendingSpace { result.append(" ") }
            pendingSpace = false
            result.append(scalar)
        }
        return String(result)
    }
}
