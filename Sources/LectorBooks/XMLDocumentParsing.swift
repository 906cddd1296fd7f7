import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Runs `XMLParser` over one document of a book and turns a failure into
/// `BookError.brokenXML` with the document's path, the line of the first error, and a reason a
/// person can act on.
///
/// HTML named references (`&nbsp;`) are rewritten as numeric ones first (see `HTMLEntities`).
/// Namespaces are not processed: element and attribute names arrive qualified (`dc:title`,
/// `epub:type`) and callers compare local names, which also copes with prefixed OPF files
/// (`<opf:package>`).
///
///     try XMLDocumentParsing.parse(data, path: "EPUB/ch1.xhtml", file: url, delegate: extractor)
///     // brokenXML(path: "EPUB/ch1.xhtml", line: 7, reason: "tag name mismatch (an element is closed by the wrong end tag)")
enum XMLDocumentParsing {
    static func parse(_ data: Data, path: String, file: URL, delegate: some XMLErrorRecording,
                      stoppedOnPurpose: () -> Bool = { false }) throws(BookError) {
        let parser = XMLParser(data: HTMLEntities.numericReferences(in: data))
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = delegate
        let succeeded = parser.parse()
        if stoppedOnPurpose() { return }
        if let first = delegate.errorLog.first {
            throw .brokenXML(file: file, path: path, line: max(1, first.line), reason: reason(forCode: first.code))
        }
        if !succeeded {
            let code = (parser.parserError as NSError?)?.code ?? 0
            throw .brokenXML(file: file, path: path, line: max(1, parser.lineNumber), reason: reason(forCode: code))
        }
    }

    static let tooDeepReason = "elements are nested more than \(HTMLDocumentParser.maximumDepth) deep"

    /// libxml2's error numbers (which `XMLParser` passes through) for the mistakes books make.
    static func reason(forCode code: Int) -> String {
        switch code {
        case XMLErrorLog.tooDeepCode: return tooDeepReason
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
        case 111, 512: return "parsing stopped"
        default: return "XML error \(code)"
        }
    }
}
