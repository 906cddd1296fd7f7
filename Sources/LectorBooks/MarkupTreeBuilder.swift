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
final class MarkupTreeBuilder: NSObject, XMLErrorRecording {
    private(set) var root: MarkupElement?
    private(set) var errorLog = XMLErrorLog()
    private var open: [MarkupElement] = []

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String]) {
        open.append(MarkupElement(qualifiedName: elementName, attributes: attributes, content: [],
                                  line: parser.lineNumber))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                qualifiedName: String?) {
        guard let element = open.popLast() else { return }
        if open.isEmpty {
            root = element
        } else {
            open[open.count - 1].content.append(.element(element))
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !open.isEmpty else { return }
        if case .text(let previous)? = open[open.count - 1].content.last {
            open[open.count - 1].content[open[open.count - 1].content.count - 1] = .text(previous + string)
        } else {
            open[open.count - 1].content.append(.text(string))
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        errorLog.record(parseError, line: parser.lineNumber)
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        self.parser(parser, foundCharacters: String(decoding: CDATABlock, as: UTF8.self))
    }
}
