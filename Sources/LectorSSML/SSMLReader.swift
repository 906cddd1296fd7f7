@preconcurrency import CLibXML2
import LectorXML

/// libxml2's XML parser over a `Speak` call's SSML: it decides whether the text is well-formed
/// XML and streams the markup it found, each piece with its place in the text (byte offsets), to
/// an `SSMLEventHandler` that applies espeak-ng's rules (`SSMLRules`). The only file of the
/// target that calls C.
///
/// It runs through `XMLReader`'s guard like every libxml2 parse of Lector. Options and handlers
/// leave libxml2 nothing to fetch or expand: no network, no DTD loading,
/// the declaration's encoding ignored (the text is always UTF-8: a `Speak` text is a D-Bus
/// string), no document tree, no text callbacks (the rules look at the raw bytes between tags),
/// and a `<!DOCTYPE` stops the parse before its internal subset is read, so no entity is ever
/// declared: `&xxe;` or a billion laughs are undeclared entities, a well-formedness error.
/// Warnings and namespace errors (`tts:style` without an `xmlns:tts` is what espeak-ng's own
/// examples write) do not count; the first fatal error stops the parse.
///
/// Offsets: libxml2 reports where it is (`xmlByteConsumed`): just after a comment, an end tag
/// or an empty element's `/>`, at the `>` or `/>` that ends a start tag. A piece of markup starts
/// at the first `<` after the end of the previous one, since text between two tags holds no `<`.
enum SSMLReader {
    enum Event: Equatable {
        /// `<name ...>` or, `empty`, `<name .../>`; `source` runs from "<" to past ">".
        case start(name: String, source: Range<Int>, empty: Bool)
        /// `</name>`; for an empty element, its start tag's source.
        case end(name: String, source: Range<Int>)
        /// `<!-- ... -->`, from "<" to past ">".
        case comment(source: Range<Int>)
        case cdata(at: Int)
        case processingInstruction(at: Int)
        case doctype(at: Int)
    }

    /// libxml2's first fatal error: its `xmlParserErrors` code, the byte offset it stopped at,
    /// its own message, and where the last piece of markup it reported ended (what it was
    /// reading starts after that).
    struct XMLError: Equatable {
        var code: Int
        var offset: Int
        var message: String
        var after: Int = 0
    }

    enum Outcome: Equatable {
        case read
        /// The handler refused an event (it keeps its reason).
        case stopped
        case notWellFormed(XMLError)
    }

    /// The text must hold no NUL: libxml2 reads C strings, and guesses UTF-16 from NUL bytes at
    /// the start (`SSMLRules` refuses NUL before calling this).
    static func read(_ text: SSMLText, to handler: some SSMLEventHandler) -> Outcome {
        guard !text.bytes.isEmpty else {
            return .notWellFormed(XMLError(code: Int(XML_ERR_DOCUMENT_EMPTY.rawValue), offset: 0, message: "Document is empty"))
        }
        let session = Session(text: text, handler: handler)
        let made = text.bytes.withUnsafeBytes {
            XMLReader.read($0, as: .xml(substituteEntities: false, ignoreDeclaredEncoding: true), handler: saxHandler,
                           session: session)
        }
        guard made else {
            return .notWellFormed(XMLError(code: Int(XML_ERR_NO_MEMORY.rawValue), offset: 0, message: "out of memory"))
        }
        return session.outcome
    }

    /// What the C callbacks reach through the context's `_private` pointer.
    private final class Session: GuardedXMLSession {
        let text: SSMLText
        let handler: any SSMLEventHandler
        var outcome = Outcome.read
        /// Where the last reported piece of markup (or the XML declaration) ended.
        var consumed = 0
        /// An empty element's start tag, whose end libxml2 reports next.
        var pendingEmpty: Range<Int>?

        init(text: SSMLText, handler: any SSMLEventHandler) {
            self.text = text
            self.handler = handler
        }

        static func of(_ context: UnsafeMutableRawPointer?) -> (Session, xmlParserCtxtPtr)? {
            guard let (session, parser) = GuardedXMLSession.of(context, as: Session.self),
                  parser.pointee.disableSAX == 0 else { return nil }
            return (session, parser)
        }

        /// The byte offset libxml2 has read to.
        func offset(_ parser: xmlParserCtxtPtr) -> Int { Int(xmlByteConsumed(parser)) }

        /// The "<" that starts the markup libxml2 has just read up to `end`.
        func markupStart(before end: Int) -> Int {
            text.firstIndex(of: .lessThan, in: consumed..<end) ?? consumed
        }

        func deliver(_ event: Event, _ parser: xmlParserCtxtPtr) {
            guard case .read = outcome else { return }
            if !handler.handle(event, in: text) {
                outcome = .stopped
                xmlStopParser(parser)
            }
        }
    }

    /// `prefix:local`, or `local`, as written.
    private static func qualified(_ local: UnsafePointer<xmlChar>?, _ prefix: UnsafePointer<xmlChar>?) -> String {
        let name = local.map { String(cString: $0) } ?? ""
        guard let prefix, prefix.pointee != 0 else { return name }
        return String(cString: prefix) + ":" + name
    }

    // Only C function pointers, never mutated after it is made.
    nonisolated(unsafe) private static let saxHandler: xmlSAXHandler = {
        // Everything not set here stays NULL: no tree, no entity or DTD handlers, no text.
        var sax = xmlSAXHandler()
        sax.initialized = XML_SAX2_MAGIC
        sax.startDocument = { context in
            // After the XML declaration, if any.
            guard let (session, parser) = Session.of(context) else { return }
            session.consumed = session.offset(parser)
        }
        sax.internalSubset = { context, _, _, _ in
            guard let (session, parser) = Session.of(context) else { return }
            session.deliver(.doctype(at: session.markupStart(before: session.offset(parser))), parser)
            // Whatever the handler says, the internal subset (entity declarations) is never read.
            xmlStopParser(parser)
        }
        sax.startElementNs = { context, local, prefix, _, _, _, _, _, _ in
            guard let (session, parser) = Session.of(context) else { return }
            // libxml2 is at the ">" or "/>" that ends the tag; without one it reports the
            // element anyway and then the error (GT_REQUIRED), which is what counts.
            let at = session.offset(parser), bytes = session.text.bytes
            let empty = at + 1 < bytes.count && bytes[at] == .slash && bytes[at + 1] == .greaterThan
            guard empty || (at < bytes.count && bytes[at] == .greaterThan) else { return }
            let end = at + (empty ? 2 : 1)
            let source = session.markupStart(before: at)..<end
            session.consumed = end
            if empty { session.pendingEmpty = source }
            session.deliver(.start(name: qualified(local, prefix), source: source, empty: empty), parser)
        }
        sax.endElementNs = { context, local, prefix, _ in
            guard let (session, parser) = Session.of(context) else { return }
            let source: Range<Int>
            if let empty = session.pendingEmpty {
                source = empty
                session.pendingEmpty = nil
            } else {
                let end = session.offset(parser)
                source = session.markupStart(before: end)..<end
                session.consumed = end
            }
            session.deliver(.end(name: qualified(local, prefix), source: source), parser)
        }
        sax.comment = { context, _ in
            guard let (session, parser) = Session.of(context) else { return }
            let end = session.offset(parser)
            let source = session.markupStart(before: end)..<end
            session.consumed = end
            session.deliver(.comment(source: source), parser)
        }
        sax.processingInstruction = { context, _, _ in
            guard let (session, parser) = Session.of(context) else { return }
            session.deliver(.processingInstruction(at: session.markupStart(before: session.offset(parser))), parser)
        }
        sax.cdataBlock = { context, _, _ in
            guard let (session, parser) = Session.of(context) else { return }
            session.deliver(.cdata(at: session.markupStart(before: session.offset(parser))), parser)
        }
        sax.serror = { context, error in
            guard let error, error.pointee.level == XML_ERR_FATAL, let (session, parser) = Session.of(context),
                  case .read = session.outcome else { return }
            var message = error.pointee.message.map { String(cString: $0) } ?? ""
            while message.last?.isWhitespace == true { message.removeLast() }
            session.outcome = .notWellFormed(XMLError(code: Int(error.pointee.code), offset: session.offset(parser),
                                                      message: message, after: session.consumed))
            xmlStopParser(parser)
        }
        return sax
    }()
}

/// Receives `SSMLReader`'s events in document order; false stops the parse.
protocol SSMLEventHandler: AnyObject {
    func handle(_ event: SSMLReader.Event, in text: SSMLText) -> Bool
}
