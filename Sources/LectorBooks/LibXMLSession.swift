@preconcurrency import CLibXML2
import LectorXML

/// What libxml2's C callbacks reach through the parser context's `_private` pointer: the event
/// handler, plus each parser's own bookkeeping in a subclass (HTML and XML contexts are the
/// same C type). The guard's own state (refusal, budgets) is the superclass's.
class LibXMLSession: GuardedXMLSession {
    let handler: any MarkupEventHandler

    init(handler: any MarkupEventHandler) { self.handler = handler }

    /// The line libxml2 is reading, for warnings and errors.
    func line(_ parser: xmlParserCtxtPtr) -> Int { Int(parser.pointee.input?.pointee.line ?? 1) }

    /// Stops libxml2 once the handler has read what it wants (subclasses add their own reasons).
    func stopIfDone(_ parser: xmlParserCtxtPtr) {
        if handler.stoppedOnPurpose { xmlStopParser(parser) }
    }

    /// Text, whitespace and CDATA alike: decoded (bytes that are not UTF-8 become U+FFFD) and handed on.
    func characters(_ bytes: UnsafePointer<xmlChar>, _ length: Int32, _ parser: xmlParserCtxtPtr) {
        let text = String(decoding: UnsafeBufferPointer(start: bytes, count: Int(length)), as: UTF8.self)
        handler.characters(text, line: line(parser))
        stopIfDone(parser)
    }
}
