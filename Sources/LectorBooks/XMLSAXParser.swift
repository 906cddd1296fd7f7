import Foundation
@preconcurrency import CLibXML2
import LectorXML

/// libxml2's XML parser, streaming SAX2 events to a `MarkupEventHandler` the way FoundationXML's
/// `XMLParser` did, without what made `XMLParser` unfit for hostile books: it crashed on a name
/// that is not UTF-8 and leaked a string for every error it reported. It runs through
/// `XMLReader`'s guard (no network, no DTD loading, external entities never declared, internal
/// ones substituted within a budget, cancellable): what the guard refused is `Result.refusal`.
///
/// Names arrive qualified as written (`dc:title`, `epub:type`; namespaces are not resolved for
/// the caller), namespace declarations as `xmlns…` attributes. Parsing stops at the first
/// well-formedness error that counts (see `XMLErrorLog`), when the handler has read what it
/// wants, or past `HTMLDocumentParser.maximumDepth` open elements (libxml2's own limit is the
/// same).
enum XMLSAXParser {
    struct Result {
        var firstError: (code: Int, line: Int)?
        /// Set when elements nested deeper than the limit.
        var tooDeepAtLine: Int?
        /// Why the guard stopped the parse (entities past their budget, cancelled, CPU spent).
        var refusal: XMLRefusal?
    }

    static func parse(_ data: Data, handler: some MarkupEventHandler) -> Result {
        // 4: libxml2's "the document is empty"; 2: out of memory.
        guard !data.isEmpty else { return Result(firstError: (4, 1)) }
        let session = Session(handler: handler)
        guard data.withUnsafeBytes({ XMLReader.read($0, as: .xml(substituteEntities: true), handler: saxHandler,
                                                      session: session) }) else { return Result(firstError: (2, 1)) }
        return Result(firstError: session.errors.first, tooDeepAtLine: session.tooDeepAtLine, refusal: session.refusal)
    }

    private final class Session: LibXMLSession {
        var errors = XMLErrorLog()
        var tooDeepAtLine: Int?

        static func of(_ context: UnsafeMutableRawPointer?) -> (Session, xmlParserCtxtPtr)? {
            LibXMLSession.of(context, as: Session.self)
        }

        /// Stops libxml2 at the first error that counts, or once the handler is done.
        override func stopIfDone(_ parser: xmlParserCtxtPtr) {
            if handler.stoppedOnPurpose || errors.first != nil || tooDeepAtLine != nil { xmlStopParser(parser) }
        }
    }

    /// `prefix:local`, or `local`; bytes that are not UTF-8 become U+FFFD instead of a crash.
    private static func qualified(_ local: UnsafePointer<xmlChar>?, _ prefix: UnsafePointer<xmlChar>?) -> String {
        let name = local.map { String(cString: $0) } ?? ""
        guard let prefix, prefix.pointee != 0 else { return name }
        return String(cString: prefix) + ":" + name
    }

    // Only C function pointers, never mutated after it is made.
    nonisolated(unsafe) private static let saxHandler: xmlSAXHandler = {
        var sax = xmlSAXHandler()
        // Defaults for the DTD, entities and the document node; the content handlers are ours.
        xmlSAXVersion(&sax, 2)
        sax.startElement = nil
        sax.endElement = nil
        sax.reference = nil
        sax.comment = nil
        sax.processingInstruction = nil
        sax.warning = nil
        sax.error = nil
        sax.fatalError = nil
        // Entity declarations and look-ups stay SAX2's: XMLReader's guard lets only internal
        // entities be declared and counts what their references expand to.
        sax.startElementNs = { context, local, prefix, _, namespaceCount, namespaces, attributeCount, _, attributes in
            guard let (session, parser) = Session.of(context), !session.handler.stoppedOnPurpose else { return }
            if Int(parser.pointee.nameNr) > HTMLDocumentParser.maximumDepth {
                session.tooDeepAtLine = session.line(parser)
                xmlStopParser(parser)
                return
            }
            var values: [String: String] = [:]
            if let namespaces {
                for index in 0..<Int(namespaceCount) {
                    let key = namespaces[2 * index].map { "xmlns:" + String(cString: $0) } ?? "xmlns"
                    values[key] = namespaces[2 * index + 1].map { String(cString: $0) } ?? ""
                }
            }
            if let attributes {
                for index in 0..<Int(attributeCount) {
                    let fields = attributes + 5 * index
                    guard fields[0] != nil else { continue }
                    var value = ""
                    if let start = fields[3], let end = fields[4], end > start {
                        value = String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
                    }
                    values[qualified(fields[0], fields[1])] = value
                }
            }
            session.handler.startElement(qualified(local, prefix), attributes: values, line: session.line(parser))
            session.stopIfDone(parser)
        }
        sax.endElementNs = { context, local, prefix, _ in
            guard let (session, parser) = Session.of(context), !session.handler.stoppedOnPurpose else { return }
            session.handler.endElement(qualified(local, prefix), line: session.line(parser))
            session.stopIfDone(parser)
        }
        let characters: charactersSAXFunc = { context, bytes, length in
            guard let (session, parser) = Session.of(context), let bytes, length > 0,
                  !session.handler.stoppedOnPurpose else { return }
            session.characters(bytes, length, parser)
        }
        sax.characters = characters
        sax.ignorableWhitespace = characters
        sax.cdataBlock = characters
        sax.serror = { context, error in
            guard let error, let (session, parser) = Session.of(context) else { return }
            let code = Int(error.pointee.code)
            if code == Int(XML_ERR_INTERNAL_ERROR.rawValue), Int(parser.pointee.nameNr) >= HTMLDocumentParser.maximumDepth {
                session.tooDeepAtLine = session.tooDeepAtLine ?? session.line(parser)
            } else if !session.handler.stoppedOnPurpose {
                session.errors.record(code: code, line: session.line(parser))
            }
            session.stopIfDone(parser)
        }
        return sax
    }()
}
