import Foundation
import LectorXML

/// Runs `XMLSAXParser` over one document of a book and turns a failure into
/// `BookError.brokenXML` with the document's path, the line of the first error, and a reason a
/// person can act on; what `XMLReader`'s guard refused (entities past their budget, an entity
/// loop, a parse past its CPU budget or cancelled) becomes `BookError.refusedXML`, never read leniently.
///
/// HTML named references (`&nbsp;`) are rewritten as numeric ones first (see `HTMLEntities`).
/// Namespaces are not resolved for the handler: element and attribute names arrive qualified
/// (`dc:title`, `epub:type`) and callers compare local names, which also copes with prefixed
/// OPF files (`<opf:package>`).
///
///     try XMLDocumentParsing.parse(data, path: "EPUB/ch1.xhtml", file: url, handler: extractor)
///     // brokenXML(path: "EPUB/ch1.xhtml", line: 7, reason: "tag name mismatch (an element is closed by the wrong end tag)")
enum XMLDocumentParsing {
    static func parse(_ data: Data, path: String, file: URL, handler: some MarkupEventHandler) throws(BookError) {
        let data = HTMLEntities.numericReferences(in: data)
        if let line = firstCrowdedElementLine(data) {
            throw .brokenXML(file: file, path: path, line: line, reason: tooManyAttributesReason)
        }
        let result = XMLSAXParser.parse(data, handler: handler)
        if let refusal = result.refusal { throw .refusedXML(file: file, path: path, reason: refusal.reason) }
        if let line = handler.tooDeepAtLine ?? result.tooDeepAtLine {
            throw .brokenXML(file: file, path: path, line: max(1, line), reason: tooDeepReason)
        }
        if handler.stoppedOnPurpose { return }
        if let first = result.firstError {
            throw .brokenXML(file: file, path: path, line: max(1, first.line), reason: reason(forCode: first.code))
        }
    }

    /// libxml2 compares each attribute of an element with every one before it (1 MB of
    /// attributes on one element: 6 s in FoundationXML's XMLParser, 8 s in the HTML parser); no book needs more.
    static let maximumAttributes = 256
    static let tooManyAttributesReason = "an element has more than \(maximumAttributes) attributes"

    /// The line of the first tag with more than `maximumAttributes` `=` signs outside quotes,
    /// found in one pass that follows quotes, so a quoted `>` does not end the tag.
    static func firstCrowdedElementLine(_ data: Data) -> Int? {
        let lessThan = UInt8(ascii: "<"), greaterThan = UInt8(ascii: ">"), equals = UInt8(ascii: "=")
        let doubleQuote = UInt8(ascii: "\""), singleQuote = UInt8(ascii: "'"), newline = UInt8(ascii: "\n")
        var line = 1, tagLine = 1, inTag = false, quote: UInt8 = 0, attributes = 0
        for byte in data {
            if byte == newline { line += 1 }
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if !inTag {
                if byte == lessThan { inTag = true; attributes = 0; tagLine = line }
            } else if byte == greaterThan {
                inTag = false
            } else if byte == doubleQuote || byte == singleQuote {
                quote = byte
            } else if byte == equals {
                attributes += 1
                if attributes > maximumAttributes { return tagLine }
            }
        }
        return nil
    }

    static let tooDeepReason = "elements are nested more than \(HTMLDocumentParser.maximumDepth) deep"

    /// libxml2's error numbers for the mistakes books make.
    static func reason(forCode code: Int) -> String {
        switch code {
        case 4: return "the document is empty"
        case 5: return "the document ends too early (unclosed element or truncated file)"
        case 6, 7, 8: return "invalid character reference"
        case 9: return "invalid character"
        case 23: return "an entity reference is missing its semicolon (a bare & should be &amp;)"
        case 22, 68: return "a name was expected (a bare & or < should be &amp; or &lt;)"
        case 26, 27: return "undeclared entity (an HTML named reference XML does not know)"
        case 31, 32: return "unsupported encoding"
        case 38: return "a < inside an attribute value"
        case 39, 40: return "an attribute value is not quoted or not closed"
        case 41: return "an attribute without a value"
        case 42: return "an attribute appears twice"
        case 64: return "a processing instruction uses the reserved name xml"
        case 65: return "a space is required"
        case 73: return "a > is missing"
        case 76: return "tag name mismatch (an element is closed by the wrong end tag)"
        case 77: return "an element is not closed"
        case 85: return "the elements are not well balanced"
        case 86: return "extra content after the document element"
        case 89: return XMLRefusal.entityLoop.reason
        case 111, 512: return "parsing stopped"
        default: return "XML error \(code)"
        }
    }
}
