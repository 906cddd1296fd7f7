@preconcurrency import CLibXML2
import LectorXML

/// The one place LectorBooks calls C: libxml2's HTML parser, the forgiving reader browsers'
/// Linux tools use, for content documents that are not well-formed XML. It streams SAX events
/// (no tree is built, so nothing is walked recursively) to a `MarkupEventHandler`.
///
/// It runs through `XMLReader`'s guard (`.html`): recover, no network, no error output, the
/// document's own charset hints ignored (the bytes are always UTF-8, decoded by
/// `ContentDocumentDecoder`), never `HTML_PARSE_HUGE`, cancellable and on the scope's CPU budget.
///
/// Depth: libxml2 keeps a stack of open elements and looks through all of it for each end tag
/// that closes nothing, so a document with 300,000 unclosed elements and as many stray end tags
/// costs minutes. The parse therefore stops as soon as elements nest deeper than
/// `maximumDepth`, and says so; the caller reads the document again flattened (see
/// `HTMLPreparation.prepared(_:flat:)`), whose elements never nest.
enum HTMLDocumentParser {
    /// Real books nest a few dozen elements deep; 256 is libxml2's own XML default.
    static let maximumDepth = 256

    enum Outcome: Equatable {
        case parsed
        /// Stopped at an element nested deeper than `maximumDepth`; the handler saw a prefix.
        case tooDeep
        /// Stopped by the guard: cancelled or out of CPU (the HTML parser declares no entities).
        case refused(XMLRefusal)
    }

    static func parse(_ bytes: [UInt8], handler: some MarkupEventHandler) -> Outcome {
        guard !bytes.isEmpty else { return .parsed }
        let session = Session(handler: handler)
        _ = bytes.withUnsafeBytes { XMLReader.read($0, as: .html, handler: saxHandler, session: session) }
        if let refusal = session.refusal { return .refused(refusal) }
        return session.tooDeep ? .tooDeep : .parsed
    }

    /// What the C callbacks reach through the context's `_private` pointer.
    private final class Session: LibXMLSession {
        var tooDeep = false

        static func of(_ context: UnsafeMutableRawPointer?) -> (Session, htmlParserCtxtPtr)? {
            LibXMLSession.of(context, as: Session.self)
        }
    }

    // Only C function pointers, never mutated after it is made.
    nonisolated(unsafe) private static let saxHandler: htmlSAXHandler = {
        var sax = htmlSAXHandler()
        sax.startElement = { context, name, attributes in
            guard let (session, parser) = Session.of(context), let name, !session.tooDeep else { return }
            if Int(parser.pointee.nameNr) > maximumDepth {
                session.tooDeep = true
                xmlStopParser(parser)
                return
            }
            var values: [String: String] = [:]
            if var pair = attributes {
                while let key = pair.pointee {
                    let value = pair.successor().pointee
                    let attribute = String(cString: key).lowercased()
                    if values[attribute] == nil { values[attribute] = value.map { String(cString: $0) } ?? "" }
                    pair = pair.advanced(by: 2)
                }
            }
            session.handler.startElement(String(cString: name), attributes: values, line: session.line(parser))
            session.stopIfDone(parser)
        }
        sax.endElement = { context, name in
            guard let (session, parser) = Session.of(context), let name, !session.tooDeep else { return }
            session.handler.endElement(String(cString: name), line: session.line(parser))
            session.stopIfDone(parser)
        }
        let characters: charactersSAXFunc = { context, bytes, length in
            guard let (session, parser) = Session.of(context), let bytes, length > 0, !session.tooDeep else { return }
            session.characters(bytes, length, parser)
        }
        sax.characters = characters
        // Whitespace between elements separates words; script and style text arrives as CDATA.
        sax.ignorableWhitespace = characters
        sax.cdataBlock = characters
        return sax
    }()
}
