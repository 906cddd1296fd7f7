import Foundation
import LectorXML

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
///   `figcaption`, each line of a `pre`, …) end a paragraph; `br` and table cells end a line, and
///   so does a `p`/`div`/`li`/`dd` holding one line that stops mid-sentence, when the next block
///   is of its kind (verse, see `SpeakableTextBuilder.endsMidSentence(from:)`).
/// - Never read: `head`, `script`, `style`, `nav` (the track list is the table of contents),
///   `svg`, `math`, ruby annotations (`rt`, `rp`), media fallbacks, `hidden` and
///   `aria-hidden="true"` elements, page-break markers (`epub:type="pagebreak"`, class
///   `pagenum`), back links (`backlink`) and verse line numbers (class `lnum`, `linenum`,
///   `line-number`).
/// - Note references are not read mid-sentence: `epub:type="noteref"` / `role="doc-noteref"`
///   links, a `<sup>` holding only a number or symbol or a link into a note, and a link whose
///   text is only such a marker (`<a href="#fn3">[3]</a>`).
/// - Notes (`footnote`, `endnote`, `rearnote`, `note`, `annotation`, an `aside` a reference points
///   at) are read where the table of contents points at them: a "Notes" chapter is read. That is
///   the case when the collection (`footnotes`, `endnotes`, `rearnotes`) or a note carries a
///   targeted `id`, or the whole document is targeted and the collection starts before any text.
///   Elsewhere, with `BookReadingOptions.Notes.skip`, they are skipped; otherwise each note is
///   taken out of the flow into the document's notes (`DocumentNotes`, `NoteCollector`), to be
///   read after the paragraph referring to it, and the rest of a collection (its heading) is not
///   read.
/// - Images (`BookReadingOptions.Images.read`): one with a text alternative (`ImageAlternative`)
///   is read as "Image: " and its `alt` in a paragraph of its own, after its figure's caption
///   unless that says the same, with a hidden description its `aria-describedby` names; inside
///   a line of text its `alt` is a word of the line (a drop cap); the cover is not read.
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
        /// Stop once the text is longer than this many scalars: enough to tell a chapter that
        /// holds only its title from one with text, without parsing a long document.
        var stopAfterScalars: Int?
        /// Also record how the document looks (`DocumentText.markup`), for the read-along page.
        /// Off for opening and narration, which then pay nothing for it.
        var recordsMarkup = false
        /// Where notes are read and whether images are.
        var reading = BookReadingOptions.default
        /// The words said before an image's description, in the book's language.
        var labels = SpokenLabels.english
        /// The book's cover image, and whether this document is its cover page: the cover is
        /// shown by media controls, and its `alt` ("Cover") is not read.
        var coverImagePath: String?
        var isCoverPage = false
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
            let lenient: DocumentText, flattened: Bool
            do throws(XMLRefusal) {
                (lenient, flattened) = try readLeniently(text, path: path, options: options,
                                                         knownTooDeep: reason == XMLDocumentParsing.tooDeepReason)
            } catch {
                throw .refusedXML(file: file, path: path, reason: error.reason)
            }
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
    static func extractLeniently(_ text: String, path: String, options: Options) throws(XMLRefusal) -> DocumentText {
        try readLeniently(text, path: path, options: options).document
    }

    /// `flattened` when the document nests too deep and was read without its elements.
    private static func readLeniently(_ text: String, path: String, options: Options,
                                      knownTooDeep: Bool = false) throws(XMLRefusal) -> (document: DocumentText, flattened: Bool) {
        if !knownTooDeep {
            let extractor = XHTMLTextExtractor(options: options, path: path)
            let outcome = HTMLDocumentParser.parse(HTMLPreparation.prepared(text), handler: extractor)
            if case .refused(let refusal) = outcome { throw refusal }
            if outcome == .parsed, extractor.tooDeepAtLine == nil {
                return (extractor.finished(path: path), false)
            }
        }
        let flat = XHTMLTextExtractor(options: options, path: path)
        if case .refused(let refusal) = HTMLDocumentParser.parse(HTMLPreparation.prepared(text, flat: true), handler: flat) {
            throw refusal
        }
        return (flat.finished(path: path), true)
    }

    private func finished(path: String) -> DocumentText {
        if divertDepth > 0 {
            // Stopped inside a note: its text so far stays with the notes.
            swapNoteBuffers()
            divertDepth = 0
        }
        if muteDepth > 0 {
            recorder = parkedRecorder
            muteDepth = 0
        }
        flushPendingImage()
        builder.finish()
        if !stopped { notes.paragraphEnded(at: builder.scalars.count, eventIndex: recorder?.markup.events.count) }
        recorder?.finish(at: builder.nextTextOffset)
        let title = titleText.map { MarkupElement.capped(Self.collapsed($0)) }.flatMap { $0.isEmpty ? nil : $0 }
        var document = DocumentText(
            path: path, scalars: builder.takeText(), segments: builder.segments, anchors: builder.anchors,
            headings: headings, title: title, isComplete: !stopped, markup: recorder?.markup)
        document.languages = builder.languages
        document.phonemeRuns = builder.phonemeRuns
        document.pronunciationLinks = pronunciationLinks
        document.links = (outboundLinks, linkedScalars)
        var notesText: NotesText?
        var movedOffset: (Int) -> Int = { $0 }
        if noteBuilder.hasText {
            noteBuilder.finish()
            noteRecorder?.finish(at: noteBuilder.nextTextOffset)
            var notes = DocumentText(
                path: path + Self.notesPathSuffix, scalars: noteBuilder.takeText(), segments: noteBuilder.segments,
                anchors: [:], headings: [], title: nil, markup: noteRecorder?.markup)
            notes.languages = noteBuilder.languages
            notes.phonemeRuns = noteBuilder.phonemeRuns
            let (text, moved) = AddressBrackets.removedMovingOffsets(from: notes)
            notesText = NotesText(text)
            movedOffset = moved
        }
        document.notes = notes.finished(text: notesText, isComplete: !stopped, movingNoteOffsets: movedOffset)
        return AddressBrackets.removed(from: document)
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
    static let skippedTypes: Set<String> = ["noteref", "pagebreak", "backlink"]
    /// Types of a link to a note: a note reference (skipped, shown as a marker) or an annotation
    /// reference (its words are read).
    static let referenceTypes: Set<String> = ["noteref", "annoref"]
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
        /// A note read out of the flow: its index among the moved notes, its id, and where its
        /// text starts in the notes' text.
        var movedNote: (index: Int, id: String?, start: Int)?
        /// A collection of notes read out of the flow: nothing else in it is read.
        var mutes = false
        /// A note read where it stands, with an id other chapters may refer to, and its start.
        var inFlowNote: (id: String, start: Int)?
        /// A `figure`: the images in it, read at its end unless its caption says the same.
        var isFigure = false
        var figureImages: [(alternative: String, description: String?)] = []
        var figureCaption = ""
        /// A `figcaption`: where its text starts.
        var captionStart: Int?
        /// A hidden element with an id (an image's `aria-describedby` may name it): its text is kept.
        var keepsHiddenText: (id: String, text: String)?
        /// A link to another document of the book (counted for `DocumentText.linkedScalars`).
        var linksOut = false
        /// The language of the text inside, from the nearest `xml:lang` or `lang`.
        var language: String?
        /// The prefix bound to the SSML namespace here (`ssml` unless the book binds another).
        var ssmlPrefix = "ssml"
        /// The nearest `ssml:alphabet`, which an `ssml:ph` inside uses.
        var ssmlAlphabet: String?
        /// An element with `ssml:ph`: its phonemes, alphabet and where its text starts.
        var phoneme: (phonemes: String, alphabet: String?, start: Int, divertDepth: Int)?
    }

    /// Text held back inside a `<sup>` or a fragment link until its end shows whether it is a
    /// note marker.
    private struct Capture {
        var text = ""
        var isSuperscript: Bool
        var linksIntoDocument = false
        /// The link's target: where the note is, if this is a note marker.
        var href: String?
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
    /// Where notes are read (`DocumentNotes`).
    private var notes = NoteCollector()
    /// While a note is read out of the flow, `builder` and `recorder` are the notes' and these
    /// hold the main flow's (`swapNoteBuffers`); otherwise the other way round.
    private var noteBuilder = SpeakableTextBuilder()
    private var noteRecorder: MarkupRecorder?
    private var divertDepth = 0
    /// Inside a collection of notes read out of the flow: text is dropped and nothing recorded
    /// (`recorder` is parked here) but for the notes themselves.
    private var muteDepth = 0
    private var parkedRecorder: MarkupRecorder?
    private var softBreakBeforeNote: (depth: Int, name: String)?
    /// An image met where no text of its block came before: read inline if text follows in the
    /// block (a drop cap, `<img alt="T"/>he king`), else as "Image: …" of its own.
    private var pendingImage: (alternative: String, description: String?)?
    /// Text of hidden elements with an id, for `aria-describedby` (at most `maximumDescription` each).
    private var hiddenTexts: [String: String] = [:]
    /// Links to other documents open around the text being read, how many there were, and how
    /// much text they held: what tells a contents page.
    private var outboundLinkDepth = 0
    private var outboundLinks = 0
    private var linkedScalars = 0
    private var readsNotes: Bool { options.reading.notes != .skip }
    private var readsImages: Bool { options.reading.images == .read }
    /// Stopped where the options said (an anchor, the first heading).
    private var stopped = false
    /// Where an element nested deeper than `HTMLDocumentParser.maximumDepth` started: the parse
    /// stops there, since holding a frame per level costs time at every segment.
    private(set) var tooDeepAtLine: Int?
    var stoppedOnPurpose: Bool { stopped || tooDeepAtLine != nil }
    /// The source line of what is being handled, for the source map.
    private var line = 1
    /// PLS lexicons the document's head links (`<link rel="pronunciation">`), archive paths.
    private var pronunciationLinks: [DocumentText.PronunciationLink] = []

    private init(options: Options, path: String) {
        self.options = options
        self.path = path
        if options.recordsMarkup {
            recorder = MarkupRecorder()
            noteRecorder = MarkupRecorder()
        }
    }

    static let ssmlNamespace = "http://www.w3.org/2001/10/synthesis"

    /// EPUB 3's pronunciation markup (EPUB 3 Text-to-Speech Enhancements): `ssml:ph` and
    /// `ssml:alphabet` (inherited) on any element, with whatever prefix the document binds to the
    /// SSML namespace, and `<link rel="pronunciation" type="application/pls+xml">` in the head.
    private func readPronunciation(_ name: String, _ attributes: [String: String], into frame: inout Frame) {
        let parent = frames[frames.count - 1]
        frame.ssmlPrefix = parent.ssmlPrefix
        frame.ssmlAlphabet = parent.ssmlAlphabet
        if attributes.count > 0 {
            for (key, value) in attributes where key.hasPrefix("xmlns:") && value == Self.ssmlNamespace {
                frame.ssmlPrefix = String(key.dropFirst("xmlns:".count))
            }
        }
        if name == "link", let rel = attributes["rel"],
           rel.lowercased().split(separator: " ").contains("pronunciation"), let href = attributes["href"],
           (attributes["type"] ?? "application/pls+xml").lowercased() == "application/pls+xml",
           case .inside(let target, _) = ArchivePath.resolve(href, from: path) {
            pronunciationLinks.append(.init(path: target, language: attributes["hreflang"]))
        }
        guard attributes.count > 0 else { return }
        if let alphabet = attributes[frame.ssmlPrefix + ":alphabet"] { frame.ssmlAlphabet = alphabet }
        if let phonemes = attributes[frame.ssmlPrefix + ":ph"], !frames.contains(where: { $0.phoneme != nil }),
           !phonemes.allSatisfy(\.isWhitespace) {
            frame.phoneme = (phonemes, frame.ssmlAlphabet, builder.scalars.count, divertDepth)
        }
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
        frame.language = OutputElement.languageTag(attributes["xml:lang"] ?? attributes["lang"])
            ?? frames[frames.count - 1].language
        readPronunciation(name, attributes, into: &frame)
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
            if readsNotes, skipDepth == 0, muteDepth == 0 || divertDepth > 0, let href = attributes["href"],
               MarkupElement.semanticTypes(attributes).contains(where: Self.referenceTypes.contains) {
                notes.reference(href, in: path)
            }
            if readsImages, let id = attributes["id"] ?? attributes["xml:id"], hiddenTexts[id] == nil,
               !frames.contains(where: { $0.keepsHiddenText != nil }), Self.isHidden(name, attributes) {
                frame.keepsHiddenText = (id, "")
            }
            frame.skips = true
            skipDepth += 1
            frames.append(frame)
            return
        }
        if frame.mutes {
            if muteDepth == 0, divertDepth == 0 {
                parkedRecorder = recorder
                recorder = nil
            }
            muteDepth += 1
        }
        if frame.movedNote != nil { beginMovedNote(attributes, frame: &frame) }
        if let href = attributes["href"], readsNotes, muteDepth == 0 || divertDepth > 0,
           MarkupElement.semanticTypes(attributes).contains(where: Self.referenceTypes.contains) {
            notes.reference(href, in: path)   // an annoref: its words are read, its note after the paragraph
        }
        if name == "a", let href = attributes["href"], Self.linksToAnotherDocument(href) {
            frame.linksOut = true
            outboundLinkDepth += 1
            if divertDepth == 0 { outboundLinks += 1 }
        }
        let linksIntoDocument = name == "a" && attributes["href"]?.contains("#") == true
        if capture != nil {
            if Self.paragraphBlocks.contains(name) || Self.lineBlocks.contains(name) || name == "img" {
                releaseCapture()
            } else if linksIntoDocument {
                capture?.linksIntoDocument = true
                capture?.href = attributes["href"]
            }
        }
        if capture != nil {
            // Inline content of a possible note marker: decided when the marker ends.
        } else if name == "sup" {
            frame.startsCapture = true
            capture = Capture(isSuperscript: true)
        } else if linksIntoDocument {
            frame.startsCapture = true
            capture = Capture(isSuperscript: false, linksIntoDocument: true, href: attributes["href"])
        } else if Self.paragraphBlocks.contains(name) {
            flushPendingImage()
            frame.isBlock = true
            let continuesLines = softBreak.map { $0.depth == frames.count && $0.name == name } ?? false
            endBlock(continuesLines ? .line : .paragraph)
            softBreak = nil
            frame.isTitleLike = Self.isTitleLike(attributes)
        } else if Self.lineBlocks.contains(name) {
            flushPendingImage()
            frame.isBlock = true
            endBlock(.line)
            softBreak = nil
        }
        if frame.isBlock { frames[frames.count - 1].hasBlockChild = true }
        if frame.isBlock, Self.headingElements.contains(name), headingStart == nil, divertDepth == 0, muteDepth == 0 {
            frame.isHeading = true
            headingStart = builder.scalars.count
        }
        if name == "pre" {
            frame.isPre = true
            preDepth += 1
        }
        if name == "figure" { frame.isFigure = true }
        if name == "figcaption" { frame.captionStart = builder.scalars.count }
        if recorder != nil, frame.movedNote == nil { recordStart(name, attributes, frame: &frame) }
        if name == "img", readsImages, muteDepth == 0 || divertDepth > 0, !isCover(attributes),
           let alternative = ImageAlternative.text(attributes) {
            let description = ImageAlternative.descriptionIDs(attributes).compactMap { hiddenTexts[$0] }
                .filter { !$0.isEmpty }.joined(separator: " ")
            readImage(alternative, description: description.isEmpty ? nil : description)
        }
        frames.append(frame)
    }

    private func endElement(_ elementName: String) {
        guard !stoppedOnPurpose, frames.count > 1 else { return }
        var frame = frames.removeLast()
        if frame.allowsNotes { notesAllowedDepth -= 1 }
        if frame.skips {
            skipDepth -= 1
            if recorder != nil { recordSkippedEnd(frame) }
            if let kept = frame.keepsHiddenText {
                hiddenTexts[kept.id] = MarkupElement.capped(Self.collapsed(kept.text))
            }
            return
        }
        if frame.startsCapture, let finished = capture {
            capture = nil
            let isMarker = Self.isNoteMarker(finished.text, superscript: finished.isSuperscript)
                || (finished.isSuperscript && finished.linksIntoDocument)
            if isMarker {
                if readsNotes, let href = finished.href, muteDepth == 0 || divertDepth > 0 {
                    notes.reference(href, in: path)
                }
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
        if frame.isBlock { flushPendingImage() }
        if let start = frame.captionStart, let figure = frames.lastIndex(where: \.isFigure) {
            frames[figure].figureCaption += " " + builder.string(from: start)
        }
        if frame.isFigure {
            for image in frame.figureImages where !ImageAlternative.isRepeated(image.alternative, in: frame.figureCaption) {
                speakImage(image.alternative, description: image.description)
            }
        }
        if frame.recordsClose { recorder?.close(at: builder.nextTextOffset) }
        if frame.isBlock {
            if Self.lineLikeBlocks.contains(frame.name), !frame.hasBlockChild, !frame.isTitleLike,
               let start = builder.openSegmentStart, builder.endsMidSentence(from: start) {
                endBlock(.line)
                softBreak = (frames.count, frame.name)
            } else {
                endBlock(Self.lineBlocks.contains(frame.name) ? .line : .paragraph)
                softBreak = nil
            }
        }
        if let moved = frame.movedNote { endMovedNote(moved) }
        if let note = frame.inFlowNote { notes.inFlow(id: note.id, range: builder.trimmed(note.start..<builder.scalars.count)) }
        // Only where its text stayed in one flow (a note moved out of it in between: not at all).
        if let phoneme = frame.phoneme, phoneme.divertDepth == divertDepth, phoneme.start <= builder.scalars.count {
            builder.markPhonemes(builder.trimmed(phoneme.start..<builder.scalars.count), phoneme.phonemes, alphabet: phoneme.alphabet)
        }
        if frame.mutes {
            muteDepth -= 1
            if muteDepth == 0, divertDepth == 0 { recorder = parkedRecorder }
        }
        if frame.linksOut { outboundLinkDepth -= 1 }
        if options.stopAfterFirstHeading, builder.scalars.count > 4000 { stop() }
        if let limit = options.stopAfterScalars, builder.scalars.count > limit { stop() }
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
            if let keeper = frames.lastIndex(where: { $0.keepsHiddenText != nil }),
               (frames[keeper].keepsHiddenText?.text.utf8.count ?? 0) < Self.maximumDescriptionBytes {
                frames[keeper].keepsHiddenText?.text += string
            }
            return
        }
        guard muteDepth == 0 || divertDepth > 0 else { return }
        let hasWords = string.unicodeScalars.contains(where: { !$0.properties.isWhitespace })
        if hasWords, let image = pendingImage {
            // Text follows the image in its block: its alternative is a word of that text.
            pendingImage = nil
            emit(image.alternative)
        }
        if softBreak != nil, hasWords {
            // Text straight in the container after a line: a paragraph of its own.
            endBlock(.paragraph)
            softBreak = nil
        }
        emit(string)
    }

    private func emit(_ text: String) {
        if capture != nil {
            capture?.text += text
            return
        }
        let language = frames[frames.count - 1].language
        guard preDepth > 0, text.contains("\n") else {
            let run = builder.append(text, origin: origin)
            builder.markLanguage(run, language)
            if recorder != nil { recorder?.spoken(run, in: builder.scalars) }
            if outboundLinkDepth > 0, divertDepth == 0 { linkedScalars += run?.count ?? 0 }
            return
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            if index > 0 { endBlock(.line) }
            let run = builder.append(String(line), origin: origin)
            builder.markLanguage(run, language)
            if recorder != nil { recorder?.spoken(run, in: builder.scalars) }
            if outboundLinkDepth > 0, divertDepth == 0 { linkedScalars += run?.count ?? 0 }
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

    /// Hidden elements are skipped. Notes and their collections are read where they stand where
    /// the table of contents points at them; elsewhere, when notes are read, a note is taken out
    /// of the flow (`movedNote`) and the rest of a collection is not read (`mutes`), and when they
    /// are not, both are skipped.
    private func shouldSkip(_ name: String, _ attributes: [String: String], frame: inout Frame) -> Bool {
        let types = MarkupElement.semanticTypes(attributes)
        if Self.isHidden(name, attributes, types: types) { return true }
        let id = attributes["id"] ?? attributes["xml:id"]
        let isCollection = types.contains(where: Self.noteCollectionTypes.contains)
        let isNote = types.contains(where: Self.noteTypes.contains)
            || (name == "aside" && readsNotes && id.map(notes.referencedIDs.contains) == true)
        guard isCollection || isNote else { return false }
        let targeted = id.map(options.targetedIDs.contains) ?? false
        let wholeDocument = isCollection && options.wholeDocumentTargeted && !builder.hasText
        if notesAllowedDepth > 0 || targeted || wholeDocument {
            frame.allowsNotes = true
            notesAllowedDepth += 1
            if isNote, let id, readsNotes, divertDepth == 0 { frame.inFlowNote = (id, builder.scalars.count) }
            return false
        }
        guard readsNotes else { return true }
        if divertDepth > 0 { return false }   // a note inside a note: part of it
        if isNote {
            frame.movedNote = (0, id, 0)
        } else {
            frame.mutes = true
        }
        return false
    }

    // MARK: Notes read out of the flow

    /// Swaps the builder and recorder of the main flow with the notes' ones.
    private func swapNoteBuffers() {
        swap(&builder, &noteBuilder)
        swap(&recorder, &noteRecorder)
    }

    /// The note's text goes to the notes' text, as a paragraph of its own; where it stood is
    /// remembered in case nothing refers to it.
    private func beginMovedNote(_ attributes: [String: String], frame: inout Frame) {
        releaseCapture()
        flushPendingImage()
        let midParagraph = muteDepth == 0 && builder.openSegmentStart != nil
        let index = notes.beginMoved(midParagraph: midParagraph, at: builder.scalars.count,
                                     eventIndex: recorder?.markup.events.count ?? parkedRecorder?.markup.events.count)
        softBreakBeforeNote = softBreak
        softBreak = nil
        swapNoteBuffers()
        divertDepth += 1
        builder.endBlock(.paragraph)
        frame.movedNote = (index, frame.movedNote?.id, builder.nextTextOffset)
    }

    private func endMovedNote(_ note: (index: Int, id: String?, start: Int)) {
        flushPendingImage()
        builder.endBlock(.paragraph)
        // `start` was where the note's first scalar would land: past the end when it had none.
        let range = builder.trimmed(min(note.start, builder.scalars.count)..<builder.scalars.count)
        swapNoteBuffers()
        divertDepth -= 1
        softBreak = softBreakBeforeNote
        notes.endMoved(note.index, id: note.id, range: range)
    }

    /// Ends the current block; a paragraph of the main flow ending is where the notes referred
    /// to in it are read.
    private func endBlock(_ separator: SpeakableTextBuilder.Separator) {
        builder.endBlock(separator)
        if separator == .paragraph, divertDepth == 0 {
            notes.paragraphEnded(at: builder.scalars.count, eventIndex: recorder?.markup.events.count)
        }
    }

    // MARK: Images

    /// An image with a text alternative: in a figure, read at the figure's end (unless its
    /// caption says the same); after text of its block, read as a word of it; otherwise held
    /// until the block shows which (`pendingImage`).
    private func readImage(_ alternative: String, description: String?) {
        if let figure = frames.lastIndex(where: \.isFigure) {
            frames[figure].figureImages.append((alternative, description))
        } else if builder.openSegmentStart != nil {
            emit(alternative)
        } else {
            flushPendingImage()
            pendingImage = (alternative, description)
        }
    }

    private func isCover(_ attributes: [String: String]) -> Bool {
        if options.isCoverPage { return true }
        guard let cover = options.coverImagePath, let source = attributes["src"],
              case .inside(let imagePath, _) = ArchivePath.resolve(source, from: path) else { return false }
        return imagePath == cover
    }

    private func flushPendingImage() {
        guard let image = pendingImage else { return }
        pendingImage = nil
        speakImage(image.alternative, description: image.description)
    }

    /// "Image: " and the alternative as a paragraph of its own, then the description. The label
    /// is no run of the book's text: the read-along page shows the image, not the label.
    private func speakImage(_ alternative: String, description: String?) {
        endBlock(.paragraph)
        softBreak = nil
        builder.markLanguage(builder.append(options.labels.image, origin: origin), nil)
        let run = builder.append(" " + alternative, origin: origin)
        builder.markLanguage(run, frames[frames.count - 1].language)
        if recorder != nil { recorder?.spoken(run, in: builder.scalars) }
        if let description {
            endBlock(.line)
            let described = builder.append(description, origin: origin)
            builder.markLanguage(described, frames[frames.count - 1].language)
            if recorder != nil { recorder?.spoken(described, in: builder.scalars) }
        }
        endBlock(.paragraph)
    }

    /// `chapter2.xhtml`, `../Text/c3.xhtml#p4`: a link to another document of the book, told from
    /// the href alone (resolving every link of a long contents page cost milliseconds). Fragments
    /// (`#n3`) stay in the document; anything with a scheme (`http:`, `mailto:`) leaves the book.
    static func linksToAnotherDocument(_ href: String) -> Bool {
        var sawPath = false
        for byte in href.utf8 {
            switch byte {
            case UInt8(ascii: "#"), UInt8(ascii: "?"): return sawPath
            case UInt8(ascii: ":"): return false
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): continue
            default: sawPath = true
            }
        }
        return sawPath
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

    /// The path of a document's moved notes (`SourceSpan.documentPath` of a note read out of its
    /// place): `EPUB/c1.xhtml#notes`.
    static let notesPathSuffix = "#notes"

    /// Most text kept of one hidden description.
    static let maximumDescriptionBytes = 8 << 10

    /// More than a title needs (it is cut to `MarkupElement.maximumFieldLength` characters).
    static let maximumTitleBytes = 64 << 10

    static func collapsed(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
