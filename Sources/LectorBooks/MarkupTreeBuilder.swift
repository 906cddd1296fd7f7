import Foundation

/// The handler that builds a `MarkupElement` tree: a stack of open elements, each
/// appended to its parent when it closes.
///
/// Bounded: an element nested deeper than `HTMLDocumentParser.maximumDepth` stops the parse
/// (`tooDeepAtLine`), since the tree is later walked recursively; text arriving in many pieces
/// is joined once per element, not once per piece.
///
///     let builder = MarkupTreeBuilder()
///     try XMLDocumentParsing.parse(data, path: path, file: url, handler: builder)
///     builder.root?.name  // "package"
final class MarkupTreeBuilder: MarkupEventHandler {
    private(set) var root: MarkupElement?
    private(set) var tooDeepAtLine: Int?
    private var open: [MarkupElement] = []
    /// Text since the last tag, added to the open element at the next tag.
    private var pendingText = ""

    // MARK: Events from XMLSAXParser or HTMLDocumentParser

    var stoppedOnPurpose: Bool { tooDeepAtLine != nil }

    func startElement(_ qualifiedName: String, attributes: [String: String], line: Int) {
        guard tooDeepAtLine == nil else { return }
        if open.count >= HTMLDocumentParser.maximumDepth {
            tooDeepAtLine = line
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
