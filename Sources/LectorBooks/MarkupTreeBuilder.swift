import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The `XMLParserDelegate` that builds a `MarkupElement` tree: a stack of open elements, each
/// appended to its parent when it closes.
///
///     let builder = MarkupTreeBuilder()
///     try XMLDocumentParsing.parse(data, path: path, file: url, delegate: builder)
///     builder.root?.name  // "package"
final class MarkupTreeBuilder: NSObject, XMLErrorRecording, TagSoupHandler {
    private(set) var root: MarkupElement?
    private(set) var errorLog = XMLErrorLog()
    private var open: [MarkupElement] = []

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String]) {
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
        errorLog.record(parseError, line: parser.lineNumber)
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        characters(String(decoding: CDATABlock, as: UTF8.self), line: parser.lineNumber)
    }

    // MARK: Either parser's events (TagSoupParser calls these directly)

    var stoppedOnPurpose: Bool { false }

    func startElement(_ qualifiedName: String, attributes: [String: String], line: Int) {
        open.append(MarkupElement(qualifiedName: qualifiedName, attributes: attributes, content: [], line: line))
    }

    func endElement(_ qualifiedName: String, line: Int) {
        guard let element = open.popLast() else { return }
        if open.isEmpty {
            root = element
        } else {
            open[open.count - 1].content.append(.element(element))
        }
    }

    func characters(_ string: String, line: Int) {
        guard !open.isEmpty else { return }
        if case .text(let previous)? = open[open.count - 1].content.last {
            open[open.count - 1].content[open[open.count - 1].content.count - 1] = .text(previous + string)
        } else {
            open[open.count - 1].content.append(.text(string))
        }
    }
}
