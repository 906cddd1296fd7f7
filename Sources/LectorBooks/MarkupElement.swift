import Foundation
import LectorXML

/// A small read-only XML element tree for the documents that describe a book rather than hold
/// its text: `container.xml`, the OPF, the NCX, the navigation document, `encryption.xml`.
///
/// Names are matched by local name, so `dc:title`, `opf:package` and `ncx:navPoint` are found as
/// `title`, `package` and `navPoint`:
///
///     let package = try MarkupElement.parse(opfData, path: "EPUB/package.opf", file: url)
///     package.firstChild("metadata")?.children("title").map(\.textContent)  // ["Children's Literature", …]
struct MarkupElement: Sendable {
    var qualifiedName: String
    var attributes: [String: String]
    var content: [MarkupContent]
    /// Line of the start tag, for messages.
    var line: Int

    var name: String { Self.localName(qualifiedName) }

    static func localName(_ qualified: String) -> String {
        guard let colon = qualified.lastIndex(of: ":") else { return qualified }
        return String(qualified[qualified.index(after: colon)...])
    }

    /// `lenient` is for content documents only (a cover page): when the XML is not well-formed,
    /// the tree is built by libxml2's HTML parser instead, flat when it nests too deep. The
    /// documents that describe the book stay strict, and are refused when they nest deeper than
    /// `HTMLDocumentParser.maximumDepth`.
    static func parse(_ data: Data, path: String, file: URL, lenient: Bool = false) throws(BookError) -> MarkupElement {
        let builder = MarkupTreeBuilder()
        do throws(BookError) {
            try XMLDocumentParsing.parse(data, path: path, file: file, handler: builder)
        } catch {
            guard lenient, case .brokenXML(_, _, let line, let reason) = error else { throw error }
            let text: String
            do throws(ContentDocumentDecoder.NotText) {
                text = try ContentDocumentDecoder.decode(data)
            } catch {
                throw .brokenXML(file: file, path: path, line: line, reason: "not a text document: \(error.detected)")
            }
            var html = MarkupTreeBuilder()
            var outcome = HTMLDocumentParser.parse(HTMLPreparation.prepared(text), handler: html)
            if outcome == .tooDeep || html.tooDeepAtLine != nil {
                html = MarkupTreeBuilder()
                outcome = HTMLDocumentParser.parse(HTMLPreparation.prepared(text, flat: true), handler: html)
            }
            if case .refused(let refusal) = outcome { throw .refusedXML(file: file, path: path, reason: refusal.reason) }
            guard let root = html.root else { throw .brokenXML(file: file, path: path, line: line, reason: reason) }
            return root
        }
        guard let root = builder.root else {
            throw .brokenXML(file: file, path: path, line: 1, reason: "the document is empty")
        }
        return root
    }

    /// The attribute by exact qualified name, else by local name (`role` finds `opf:role`).
    func attribute(_ name: String) -> String? {
        if let value = attributes[name] { return value }
        return attributes.first { Self.localName($0.key) == name && $0.key.contains(":") && !$0.key.hasPrefix("xmlns") }?.value
    }

    /// Whitespace-separated tokens of `epub:type` and of `role` (with the DPUB-ARIA `doc-` prefix
    /// dropped), e.g. `["toc"]` or `["noteref"]`.
    var semanticTypes: [String] {
        Self.semanticTypes(attributes)
    }

    static func semanticTypes(_ attributes: [String: String]) -> [String] {
        var tokens: [String] = []
        for (key, value) in attributes {
            let isEpubType = key == "epub:type" || (key.hasSuffix(":type") && !key.hasPrefix("xmlns"))
            if isEpubType {
                tokens += value.split(whereSeparator: \.isWhitespace).map { String($0).lowercased() }
            } else if key == "role" {
                tokens += value.split(whereSeparator: \.isWhitespace).map {
                    let token = String($0).lowercased()
                    return token.hasPrefix("doc-") ? String(token.dropFirst(4)) : token
                }
            }
        }
        return tokens
    }

    var elements: [MarkupElement] {
        content.compactMap { if case .element(let element) = $0 { return element } else { return nil } }
    }

    func children(_ name: String) -> [MarkupElement] { elements.filter { $0.name == name } }

    func firstChild(_ name: String) -> MarkupElement? { elements.first { $0.name == name } }

    /// Depth-first, document order, including self.
    func descendants(_ name: String) -> [MarkupElement] {
        var found: [MarkupElement] = []
        var pending = [self]
        while let element = pending.popLast() {
            if element.name == name { found.append(element) }
            pending.append(contentsOf: element.elements.reversed())
        }
        return found
    }

    /// Longest metadata text kept (a title, an author, a table-of-contents label): more is cut
    /// with an ellipsis, so a megabyte-long title costs nothing downstream.
    static let maximumFieldLength = 1000

    static func capped(_ text: String) -> String {
        guard text.utf8.count > maximumFieldLength else { return text }
        var characters = 0
        var end = text.startIndex
        while end < text.endIndex, characters < maximumFieldLength {
            text.formIndex(after: &end)
            characters += 1
        }
        return end == text.endIndex ? text : String(text[..<end].dropLast()) + "…"
    }

    /// All text inside, in order, whitespace collapsed and trimmed, cut at
    /// `maximumFieldLength` characters.
    var textContent: String {
        var result = ""
        var characters = 0
        var pendingSpace = false
        var pending: [MarkupContent] = content.reversed()
        while let item = pending.popLast() {
            switch item {
            case .element(let element):
                pending.append(contentsOf: element.content.reversed())
            case .text(let text):
                for character in text {
                    if character.isWhitespace {
                        pendingSpace = !result.isEmpty
                        continue
                    }
                    if characters >= Self.maximumFieldLength {
                        return String(result.dropLast()) + "…"
                    }
                    if pendingSpace {
                        result.append(" ")
                        characters += 1
                        pendingSpace = false
                    }
                    result.append(character)
                    characters += 1
                }
            }
        }
        return result
    }
}
