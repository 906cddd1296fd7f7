import Foundation

/// Turns one XHTML content document into `DocumentText`: the words a listener should hear, in
/// order, with block boundaries, anchors and headings.
///
/// The document is read as XML (`XMLSAXParser`); when it is not well-formed XML (a raw
/// `<name@host>`, a `<b>` closed by `</p>`, an unknown entity, a truncated file), it is read
/// again with libxml2's HTML parser (`HTMLDocumentParser`), which feeds the same element and
/// text handling below, and the result carries a `warning`. Only bytes that are not text at all are refused.
/// Elements nested deeper than `HTMLDocumentParser.maximumDepth` are read flat: every word,
/// without the structure (see `HTMLPreparation`).
///
/// What is read and what is not:
/// - Block elements (`p`, `div`, `h1`…`h6`, `li`, `blockquote`, `tr`, `section`, `dt`/`dd`,
///   `figcaption`, each line of a `pre`, …) end a paragraph; `br` and table cells end a line.
/// - Never read: `head`, `script`, `style`, `nav` (the track list is the table of contents),
///   `svg`, `math`, ruby annotations (`rt`, `rp`), media fallbacks, `hidden` and
///   `aria-hidden="true"` elements, page-break markers (`epub:type="pagebreak"`, class
///   `pagenum`) and verse line numbers (class `lnum`, `linenum`, `line-number`), image `alt` text.
/// - Note references are not read mid-sentence: `epub:type="noteref"` / `role="doc-noteref"`
///   links, a `<sup>` holding only a number or symbol or a link into a note, and a link whose
///   text is only such a marker (`<a href="#fn3">[3]</a>`).
/// - Notes themselves (`footnote`, `endnote`, `rearnote`, `note`, `annotation`, and their
///   collections `footnotes`, `endnotes`, `rearnotes`) are skipped, except where the table of
///   contents points at them: a "Notes" chapter is read. That is the case when the collection
///   (or a note) carries a targeted `id`, or the whole document is targeted and the collection
///   starts before any text.
///
/// With `Options.recordsMarkup` it also records how the document looks on the read-along page
/// (`DocumentText.markup`, written by `MarkupRecorder`): what is read is shown, allowlisted, its
/// text as ranges of the speakable text; notes and note references are shown but not read;
/// what is never read is never shown.
///
///     let text = try XHTMLTextExtractor.extract(data, path: "EPUB/c1.xhtml", file: url, options: .init())
///     text.string(in: 0..<text.count)   // "Chapter One.\n\nIt was a dark and stormy night."
final class XHTMLTextExtractor: MarkupEventHandler {
    struct Options: Sendable {
        /// Fragment ids the table of contents points at in this document.
        var targetedIDs: Set<String> = []
        /// The table of contents points at this document without a fragment.
        var wholeDocumentTargeted = false
        /// Stop at the end of the first heading (or after a few thousand characters): enough to
        /// title a chapter without reading the whole document.
        var stopAfterFirstHeading = false
        /// Stop where the element with this id starts: enough to cut the chapters before it out
        /// of a long single-file book without parsing the rest.
        var stopAtAnchor: String?
        /// Also record how the document looks (`DocumentText.markup`), for the read-along page.
        /// Off for opening and narration, which then pay nothing for it.
        var recordsMarkup = false
    }

    /// Parses `data` as XML; when it is not well-formed, reads it again as HTML, which forgives
    /// what sloppy books do (a raw `<name@host>`, a `<b>` closed by `</p>`, an unknown entity, a
    /// truncated file), and says so in `DocumentText.warning`. Only data that
    /// is not text at all (NUL bytes, mostly control characters) is still refused as `brokenXML`.
    static func extract(_ data: Data, path: String, file: URL, options: Options) throws(BookError) -> DocumentText {
        do throws(BookError) {
            return try extractStrictly(data, path: path, file: file, options: options)
        } catch {
            guard case .brokenXML(_, _, let line, let reason) = error else { throw error }
            let text: String
            do throws(ContentDocumentDecoder.NotText) {
                text = try ContentDocumentDecoder.decode(data)
            } catch {
                throw .brokenXML(file: file, path: path, line: line, reason: "not a text document: \(error.detected)")
            }
            let (lenient, flattened) = readLeniently(text, path: path, options: options,
                                                     knownTooDeep: reason == XMLDocumentParsing.tooDeepReason)
            var document = lenient
            var warning = "\(path) is not well-formed XML at line \(line) (\(reason)); read leniently as HTML"
            if flattened {
                warning += " without its structure"
                if reason != XMLDocumentParsing.tooDeepReason { warning += " (\(XMLDocumentParsing.tooDeepReason))" }
            }
            document.warning = warning
            return document
        }
    }

    /// The XML reading alone: `brokenXML` for any well-formedness error.
    static func extractStrictly(_ data: Data, path: String, file: URL,
                                options: Options) throws(BookError) -> DocumentText {
        let extractor = XHTMLTextExtractor(options: options, path: path)
        try XMLDocumentParsing.parse(data, path: path, file: file, handler: extractor)
        return extractor.finished(path: path)
    }

    /// The HTML reading alone, of already decoded text; the same rules, so a well-formed
    /// document reads the same either way.
    static func extractLeniently(_ text: String, path: String, options: Options) -> DocumentText {
        readLeniently(text, path: path, options: options).document
    }

    /// `flattened` when the document nests too deep and was read without its elements.
    private static func readLeniently(_ text: String, path: String, options: Options,
                                      knownTooDeep: Bool = false) -> (document: DocumentText, flattened: Bool) {
        if !knownTooDeep {
            let extractor = XHTMLTextExtractor(options: options, path: path)
            if HTMLDocumentParser.parse(HTMLPreparation.prepared(text), handler: extractor) == .parsed,
               extractor.tooDeepAtLine == nil {
                return (extractor.finished(path: path), false)
            }
        }
        let flat = XHTMLTextExtractor(options: options, path: path)
        _ = HTMLDocumentParser.parse(HTMLPreparation.prepared(text, flat: true), handler: flat)
        return (flat.finished(path: path), true)
    }

    private func finished(path: String) -> DocumentText {
        builder.finish()
        recorder?.finish(at: builder.nextTextOffset)
        let title = titleText.map { MarkupElement.capped(Self.collapsed($0)) }.flatMap { $0.isEmpty ? nil : $0 }
        return AddressBrackets.removed(from: DocumentText(
            path: path, scalars: builder.scalars, segments: builder.segments, anchors: builder.anchors,
            headings: headings, title: title, isComplete: !stopped, markup: recorder?.markup))
    }

    static let paragraphBlocks: Set<String> = [
        "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dialog",
        "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5",
        "h6", "header", "hgroup", "hr", "legend", "li", "main", "ol", "p", "pre", "section", "summary", "table",
        "tbody", "tfoot", "thead", "tr", "ul",
    ]
    static let lineBlocks: Set<String> = ["br", "td", "th"]
    /// Blocks that may hold one line of a run of lines: a verse line in its own `div` or `p`, a
    /// list item. One that ends mid-sentence joins the next of its kind with a line break (see
    /// `SpeakableTextBuilder.endsMidSentence(from:)`).
    static let lineLikeBlocks: Set<String> = ["p", "div", "li", "dd"]
    /// Class tokens and semantic types of a title set in an ordinary block (`<p class="chapter-title">`),
    /// which keeps its paragraph break.
    static let titleTokens: Set<String> = [
        "title", "subtitle", "heading", "head", "chapter", "label", "ordinal", "bridgehead", "halftitle",
        "fulltitle", "covertitle", "caption",
    ]
    static let skippedElements: Set<String> = [
        "head", "script", "style", "template", "nav", "svg", "math", "rt", "rp", "audio", "video", "object",
        "iframe", "canvas", "noscript", "button", "select", "textarea",
    ]
    static let headingElements: Set<String> = ["h1", "h2", "h3", "h4", "h5", "h6"]
    static let skippedTypes: Set<String> = ["noteref", "pagebreak"]
    static let noteTypes: Set<String> = ["footnote", "endnote", "rearnote", "note", "annotation"]
    static let noteCollectionTypes: Set<String> = ["footnotes", "endnotes", "rearnotes"]
    static let skippedClasses: Set<String> = ["pagenum", "page-number", "pagenumber", "lnum", "linenum", "line-number"]

    private struct Frame {
        var name: String
        var pathComponent: String
        /// "/html/body[1]/…/this", made when a segment first needs it: joining every ancestor
        /// for every segment cost seconds for paragraphs 250 elements deep.
        var path: String?
        var childCounts: [String: Int] = [:]
        var isBlock = false
        /// A paragraph or line block started inside: not a single line.
        var hasBlockChild = false
        /// Marked as a title by class or type: its block keeps a paragraph break.
        var isTitleLike = false
        var skips = false
        var allowsNotes = false
        var startsCapture = false
        var isHeading = false
        var isPre = false
        var collectsTitle = false
        /// Markup only: an open event was recorded, so a close is due; the open of an element
        /// starting a capture, recorded only if the capture is no note marker.
        var recordsClose = false
        var deferredOpen: OutputElement?
        /// Markup only: a skipped note shown on the page, or an element inside it that is not.
        var collectsNote = false
        var hiddenInNote = false
    }

    /// Text held back inside a `<sup>` or a fragment link until its end shows whether it is a
    /// note marker.
    private struct Capture {
        var text = ""
        var isSuperscript: Bool
        var linksIntoDocument = false
    }

    private let options: Options
    /// The document's archive path, which image sources are resolved against.
    private let path: String
    private var builder = SpeakableTextBuilder()
    /// Nil unless `options.recordsMarkup`.
    private var recorder: MarkupRecorder?
    private var frames: [Frame] = [Frame(name: "", pathComponent: "", path: "")]
    private var skipDepth = 0
    private var notesAllowedDepth = 0
    private var capture: Capture?
    private var headingStart: Int?
    private var headings: [DocumentHeading] = []
    private var titleText: String?
    private var preDepth = 0
    /// A line-like block just ended mid-sentence at this depth (`frames.count`): the next block
    /// of the same name there continues its run of lines; anything else starts a paragraph.
    private var softBreak: (depth: Int, name: String)?
    /// Stopped where the options said (an anchor, the first heading).
    private var stopped = false
    /// Where an element nested deeper than `HTMLDocumentParser.maximumDepth` started: the parse
    /// stops there, since holding a frame per level costs time at every segment.
    private(set) var tooDeepAtLine: Int?
    var stoppedOnPurpose: Bool { stopped || tooDeepAtLine != nil }
    /// The source line of what is being handled, for the source map.
    private var line = 1

    private init(options: Options, path: String) {
        self.options = options
        self.path = path
        if options.recordsMarkup { recorder = MarkupRecorder() }
    }

    // MARK: Events from XMLSAXParser or HTMLDocumentParser

    func startElement(_ qualifiedName: String, attributes: [String: String], line: Int) {
        self.line = line
        startElement(qualifiedName, attributes: attributes)
    }

    func endElement(_ qualifiedName: String, line: Int) {
        self.line = line
        endElement(qualifiedName)
    }

    func characters(_ text: String, line: Int) {
        self.line = line
        characters(text)
    }

    // MARK: Either parser's events

    private func startElement(_ elementName: String, attributes: [String: String]) {
        guard !stoppedOnPurpose else { return }
        if frames.count > HTMLDocumentParser.maximumDepth {
            tooDeepAtLine = line
            return
        }
        let name = MarkupElement.localName(elementName).lowercased()
        let siblingIndex = (frames[frames.count - 1].childCounts[name] ?? 0) + 1
        frames[frames.count - 1].childCounts[name] = siblingIndex
        var frame = Frame(name: name, pathComponent: siblingIndex == 1 && frames.count == 1
                          ? name : "\(name)[\(siblingIndex)]")
        if let id = attributes["id"] ?? attributes["xml:id"] ?? (name == "a" ? attributes["name"] : nil) {
            builder.markAnchor(id)
            if recorder != nil, options.targetedIDs.contains(id) { recorder?.markAnchor(id) }
            if id == options.stopAtAnchor {
                stop()
                return
            }
        }
        if name == "title", titleText == nil, frames.contains(where: { $0.name == "head" }) {
            frame.collectsTitle = true
            titleText = ""
        }
        if skipDepth > 0 || shouldSkip(name, attributes, frame: &frame) {
            if recorder != nil { recordSkipped(name, attributes, frame: &frame) }
            frame.skips = true
            skipDepth += 1
            frames.append(frame)
            return
        }
        let linksIntoDocument = name == "a" && attributes["href"]?.contains("#") == true
        if capture != nil {
            if Self.paragraphBlocks.contains(name) || Self.lineBlocks.contains(name) {
                releaseCapture()
            } else if linksIntoDocument {
                capture?.linksIntoDocument = true
            }
        }
        if capture != nil {
            // Inline content of a possible note marker: decided when the marker ends.
        } else if name == "sup" {
            frame.startsCapture = true
            capture = Capture(isSuperscript: true)
        } else if linksIntoDocument {
            frame.startsCapture = true
            capture = Capture(isSuperscript: false, linksIntoDocument: true)
        } else if Self.paragraphBlocks.contains(name) {
            frame.isBlock = true
            let continuesLines = softBreak.map { $0.depth == frames.count && $0.name == name } ?? false
            builder.endBlock(continuesLines ? .line : .paragraph)
            softBreak = nil
            frame.isTitleLike = Self.isTitleLike(attributes)
        } else if Self.lineBlocks.contains(name) {
            frame.isBlock = true
            builder.endBlock(.line)
            softBreak = nil
        }
        if frame.isBlock { frames[frames.count - 1].hasBlockChild = true }
        if frame.isBlock, Self.headingElements.contains(name), headingStart == nil {
            frame.isHeading = true
            headingStart = builder.scalars.count
        }
        if name == "pre" {
            frame.isPre = true
            preDepth += 1
        }
        if recorder != nil { recordStart(name, attributes, frame: &frame) }
        frames.append(frame)
    }

    private func endElement(_ elementName: String) {
        guard !stoppedOnPurpose, frames.count > 1 else { return }
        var frame = frames.removeLast()
        if frame.allowsNotes { notesAllowedDepth -= 1 }
        if frame.skips {
            skipDepth -= 1
            if recorder != nil { recordSkippedEnd(frame) }
            return
        }
        if frame.startsCapture, let finished = capture {
            capture = nil
            let isMarker = Self.isNoteMarker(finished.text, superscript: finished.isSuperscript)
                || (finished.isSuperscript && finished.linksIntoDocument)
            if isMarker {
                recorder?.marker(finished.text, at: builder.nextTextOffset)
            } else {
                if let element = frame.deferredOpen {
                    recorder?.open(element, at: builder.nextTextOffset)
                    frame.recordsClose = true
                }
                emit(finished.text)
            }
        }
        if frame.isPre { preDepth -= 1 }
        if frame.isHeading, let start = headingStart {
            var spoken = String.UnicodeScalarView()
            spoken.append(contentsOf: builder.scalars[start...])
            let text = MarkupElement.capped(Self.collapsed(String(spoken)))
            if !text.isEmpty {
                headings.append(DocumentHeading(offset: headingOffset(from: start), end: builder.scalars.count, text: text))
            }
            headingStart = nil
            if options.stopAfterFirstHeading, !text.isEmpty { stop() }
        }
        if frame.recordsClose { recorder?.close(at: builder.nextTextOffset) }
        if frame.isBlock {
            if Self.lineLikeBlocks.contains(frame.name), !frame.hasBlockChild, !frame.isTitleLike,
               let start = builder.openSegmentStart, builder.endsMidSentence(from: start) {
                builder.endBlock(.line)
                softBreak = (frames.count, frame.name)
            } else {
                builder.endBlock(Self.lineBlocks.contains(frame.name) ? .line : .paragraph)
                softBreak = nil
            }
        }
        if options.stopAfterFirstHeading, builder.scalars.count > 4000 { stop() }
    }

    private func characters(_ string: String) {
        guard !stoppedOnPurpose else { return }
        if frames[frames.count - 1].collectsTitle {
            // In place: a title arriving in many pieces must not be copied for each.
            if (titleText?.utf8.count ?? 0) < Self.maximumTitleBytes { titleText?.append(string) }
            return
        }
        guard skipDepth == 0 else {
            recorder?.noteText(string)
            return
        }
        if softBreak != nil, string.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) {
            // Text straight in the container after a line: a paragraph of its own.
            builder.endBlock(.paragraph)
            softBreak = nil
        }
        emit(string)
    }

    private func emit(_ text: String) {
        if capture != nil {
            capture?.text += text
            return
        }
        guard preDepth > 0, text.contains("\n") else {
            let run = builder.append(text, origin: origin)
            if recorder != nil { recorder?.spoken(run, in: builder.scalars) }
            return
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            if index > 0 { builder.endBlock(.line) }
            let run = builder.append(String(line), origin: origin)
            if recorder != nil { recorder?.spoken(run, in: builder.scalars) }
        }
    }

    /// A block inside a `<sup>` or link means it is no note marker: speak what was held back.
    private func releaseCapture() {
        guard let held = capture else { return }
        capture = nil
        if recorder != nil, let starter = frames.lastIndex(where: \.startsCapture),
           let element = frames[starter].deferredOpen {
            recorder?.open(element, at: builder.nextTextOffset)
            frames[starter].recordsClose = true
        }
        emit(held.text)
        for index in frames.indices { frames[index].startsCapture = false }
    }

    private func origin() -> SpeakableTextBuilder.Origin {
        let line = self.line
        guard frames.count > 1 else { return .init(elementPath: nil, line: line) }
        let blockIndex = max(1, frames.lastIndex { $0.isBlock } ?? 1)
        var known = blockIndex
        while frames[known].path == nil { known -= 1 }
        while known < blockIndex {
            known += 1
            frames[known].path = frames[known - 1].path! + "/" + frames[known].pathComponent
        }
        // Every segment keeps its path: past a few hundred bytes (dozens of levels, only in
        // hostile documents) it would cost more memory than the text.
        let path = frames[blockIndex].path!
        return .init(elementPath: path.utf8.count <= Self.maximumElementPathBytes ? path : nil, line: line)
    }

    // MARK: The read-along page's markup (only with `Options.recordsMarkup`)

    /// An element that is read: allowlisted elements open (one starting a capture waits until the
    /// capture's end shows whether it is a note marker, and the elements inside a capture are not
    /// recorded), images are placed (one inside a capture too: `<a href="#f1"><img/></a>`).
    private func recordStart(_ name: String, _ attributes: [String: String], frame: inout Frame) {
        if frame.startsCapture {
            frame.deferredOpen = OutputElement(sourceName: name, attributes: attributes)
            return
        }
        if name == "img" {
            recordImage(attributes)
            return
        }
        guard capture == nil else { return }
        guard let element = OutputElement(sourceName: name, attributes: attributes) else { return }
        if OutputElement.voidTags.contains(element.tag) {
            recorder?.void(element, at: builder.nextTextOffset)
        } else {
            recorder?.open(element, at: builder.nextTextOffset)
            frame.recordsClose = true
        }
    }

    /// Only an image inside the archive: an external one (`http:`, `data:`) or one whose path
    /// leaves the archive is dropped.
    private func recordImage(_ attributes: [String: String]) {
        guard let source = attributes["src"],
              case .inside(let imagePath, _) = ArchivePath.resolve(source, from: path) else { return }
        recorder?.image(path: imagePath, alt: attributes["alt"], at: builder.nextTextOffset)
    }

    /// An element that is not read. Starting the skip, it is a note unless hidden, or a note
    /// reference (shown as a marker); inside a note, hidden elements stay hidden and blocks
    /// start a new paragraph.
    private func recordSkipped(_ name: String, _ attributes: [String: String], frame: inout Frame) {
        if skipDepth == 0 {
            let types = MarkupElement.semanticTypes(attributes)
            if types.contains("noteref"), !Self.isHidden(name, attributes, types: types.filter { $0 != "noteref" }) {
                frame.collectsNote = true
                recorder?.beginNote(asMarker: true)
            } else if !Self.isHidden(name, attributes, types: types) {
                frame.collectsNote = true
                recorder?.beginNote()
            }
        } else if recorder?.isCollectingNote == true {
            if (recorder?.hiddenInNote ?? 0) > 0 || Self.isHidden(name, attributes) {
                frame.hiddenInNote = true
                recorder?.hiddenInNote += 1
            } else if Self.paragraphBlocks.contains(name) || Self.lineBlocks.contains(name) {
                recorder?.noteBreak()
            }
        }
    }

    private func recordSkippedEnd(_ frame: Frame) {
        if frame.hiddenInNote {
            recorder?.hiddenInNote -= 1
        } else if frame.collectsNote {
            recorder?.endNote(at: builder.nextTextOffset)
        } else if Self.paragraphBlocks.contains(frame.name) || Self.lineBlocks.contains(frame.name) {
            recorder?.noteBreak()
        }
    }

    private func headingOffset(from start: Int) -> Int {
        var offset = start
        while offset < builder.scalars.count, builder.scalars[offset].properties.isWhitespace { offset += 1 }
        return offset
    }

    private func stop() {
        stopped = true
    }

    private func shouldSkip(_ name: String, _ attributes: [String: String], frame: inout Frame) -> Bool {
        let types = MarkupElement.semanticTypes(attributes)
        if Self.isHidden(name, attributes, types: types) { return true }
        let isCollection = types.contains(where: Self.noteCollectionTypes.contains)
        let isNote = types.contains(where: Self.noteTypes.contains)
        guard isCollection || isNote else { return false }
        let targeted = (attributes["id"]).map(options.targetedIDs.contains) ?? false
        let wholeDocument = isCollection && options.wholeDocumentTargeted && !builder.hasText
        if notesAllowedDepth > 0 || targeted || wholeDocument {
            frame.allowsNotes = true
            notesAllowedDepth += 1
            return false
        }
        return true
    }

    /// `<p class="chapter-title">`, `<div epub:type="title">`: a title in an ordinary block.
    static func isTitleLike(_ attributes: [String: String]) -> Bool {
        if MarkupElement.semanticTypes(attributes).contains(where: titleTokens.contains) { return true }
        guard let classes = attributes["class"]?.lowercased() else { return false }
        return classes.split(whereSeparator: { $0.isWhitespace || $0 == "-" || $0 == "_" })
            .contains { titleTokens.contains(String($0)) }
    }

    /// Never read nor shown: scripts, hidden elements, page numbers, note references. (Notes are
    /// skipped too, but shown on the read-along page.)
    static func isHidden(_ name: String, _ attributes: [String: String],
                         types: [String]? = nil) -> Bool {
        if skippedElements.contains(name) { return true }
        if attributes["hidden"] != nil || attributes["aria-hidden"]?.lowercased() == "true" { return true }
        if let classes = attributes["class"]?.lowercased().split(whereSeparator: \.isWhitespace),
           classes.contains(where: { skippedClasses.contains(String($0)) }) { return true }
        return (types ?? MarkupElement.semanticTypes(attributes)).contains(where: skippedTypes.contains)
    }

    /// "12", "*", "†", "[3]", "(iv)", "a": what a note reference looks like. Longer text, or a
    /// word, is a real link or superscript ("1st", "Chapter 2") and is read.
    static func isNoteMarker(_ text: String, superscript: Bool) -> Bool {
        let core = text.trimmingCharacters(in: CharacterSet.whitespacesAndNewlines
            .union(CharacterSet(charactersIn: "[](){}")))
        guard !core.isEmpty, core.count <= 6 else { return false }
        if core.contains(where: \.isNumber), core.allSatisfy({ $0.isNumber || ",-–".contains($0) }) { return true }
        if core.allSatisfy({ "*†‡§¶#‖※".contains($0) }) { return true }
        if core.count == 1, let letter = core.first, letter.isLowercase { return true }
        if superscript, core.count <= 4, core.allSatisfy({ "ivx".contains($0) }) { return true }
        return false
    }

    static let maximumElementPathBytes = 512

    /// More than a title needs (it is cut to `MarkupElement.maximumFieldLength` characters).
    static let maximumTitleBytes = 64 << 10

    static func collapsed(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
