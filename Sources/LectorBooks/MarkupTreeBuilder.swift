import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The `XMLParserDelegate` that builds a `MarkupElement` tree: a stack of open elements, each
/// appended to its parent when it closes.
///
/// Bounded: an element nested deeper than `HTMLDocumentParser.maximumDepth` stops the parse
/// (`tooDeepAtLine`), since the tree is later walked recursively; text arriving in many pieces
/// is joined once per element, not once per piece.
///
///     let builder = MarkupTreeBuilder()
///     try XMLDocumentParsing.parse(data, path: path, file: url, delegate: builder)
///     builder.root?.name  // "package"
final class MarkupTreeBuilder: NSObject, XMLErrorRecording, HTMLEventHandler {
    private(set) var root: MarkupElement?
    private(set) var errorLog = XMLErrorLog()
    private(set) var tooDeepAtLine: Int?
    private var open: [MarkupElement] = []
    /// Text since the last tag, added to the open element at the next tag.
    private var pendingText = ""
    private weak var parser: XMLParser?

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String]) {
        self.parser = parser
        startElement(elementName, attributes: attributes, line: parser.lineNumber)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                qualifiedName: String?) {
        endElement(elementName, line: parser.lineNumber)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        characters(string, line: parser.lineNumber)
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        if tooDeepAtLine == nil { errorLog.record(parseError, line: parser.lineNumber) }
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        characters(String(decoding: CDATABlock, as: UTF8.self), line: parser.lineNumber)
    }

    // MARK: Either parser's events (HTMLDocumentParser calls these directly)

    var stoppedOnPurpose: Bool { tooDeepAtLine != nil }

    func startElement(_ qualifiedName: String, attributes: [String: String], line: Int) {
        guard tooDeepAtLine == nil else { return }
        if open.count >= HTMLDocumentParser.maximumDepth {
            tooDeepAtLine = line
            errorLog.recordTooDeep(line: line)
            parser?.abortParsing()
            return
        }
        flushText()
        open.append(MarkupElement(qualifiedName: qualifiedName, attributes: attributes, content: [], line: line))
    }

    func endElement(_ qualifiedName: String, line: Int) {
        guard tooDeepAtLine == nil else { return }
        flushText()
        guard let element = open.popLast() else { return }
        if open.isEmpty {
            root = element
        } else {
            open[open.count - 1].content.append(.element(element))
        }
    }

    func characters(_ string: String, line: Int) {
        guard tooDeepAtLine == nil, !open.isEmpty else { return }
        pendingText += string
    }

    private func flushText() {
        guard !pendingText.isEmpty else { return }
        if !open.isEmpty { open[open.count - 1].content.append(.text(pendingText)) }
        pendingText = ""
    }
}
