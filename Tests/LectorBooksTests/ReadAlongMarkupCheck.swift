import Foundation
import FoundationXML
import LectorBooks
import XCTest

/// What makes the read-along page's highlighting right, checked on a `ChapterMarkup` against the
/// chapter's speakable text: the fragment is well-formed XML, uses only allowlisted elements and
/// attributes, every `<span data-o="N">` holds exactly the scalars N..<N+k of `Chapter.text`, the
/// spans are in order without overlapping, and every non-whitespace scalar of the text is inside
/// one. The only words Lector invents are the labels before a note read out of its place and an
/// image's description ("Note:", "Image:"): one may stand untagged at the start of a paragraph,
/// followed by a space and tagged text. Lector invents no punctuation.
enum ReadAlongMarkupCheck {
    /// Written down here, not taken from LectorBooks, so a widened allowlist fails a test.
    static let allowedElements: Set<String> = [
        "p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "ul", "ol", "li", "dl", "dt", "dd", "table",
        "thead", "tbody", "tfoot", "tr", "td", "th", "caption", "figure", "figcaption", "pre", "code", "em",
        "strong", "i", "b", "u", "s", "sub", "sup", "small", "cite", "q", "abbr", "span", "br", "hr", "img",
        "section", "div", "aside",
    ]
    static let allowedAttributes: Set<String> = ["lang", "dir", "colspan", "rowspan", "alt", "class", "src", "data-o"]
    /// The labels Lector says, written down here too, in every language it has them for.
    static let labels: [String] = [
        "Note:", "Image:", "Anmerkung:", "Bild:", "Note :", "Image :", "Nota:", "Imagen:", "Immagine:", "Imagem:",
        "Imatge:", "Notă:", "Imagine:", "Przypis:", "Obraz:", "Noot:", "Afbeelding:", "Not:", "Примечание:",
        "Изображение:", "注:", "画像:", "注：", "图片：",
    ]

    struct Span: Equatable {
        var offset: Int
        var text: String
    }

    /// The fragment inside a root element, parsed; fails the test and throws when it is not XML.
    static func parse(_ html: String, file: StaticString = #filePath, line: UInt = #line) throws -> XMLElement {
        do {
            let document = try XMLDocument(xmlString: "<root>" + html + "</root>", options: [.nodePreserveWhitespace])
            guard let root = document.rootElement() else { throw CocoaError(.coderReadCorrupt) }
            return root
        } catch {
            XCTFail("not well-formed: \(error)\n\(html.prefix(2000))", file: file, line: line)
            throw error
        }
    }

    /// Every problem found, as readable lines; empty when the markup is right.
    static func problems(_ markup: ChapterMarkup, text: String) throws -> [String] {
        let root = try parse(markup.html)
        var problems: [String] = []
        var spans: [Span] = []
        var images: [String] = []
        visit(root, isRoot: true, problems: &problems, spans: &spans, images: &images)

        let scalars = Array(text.unicodeScalars)
        var covered = [Bool](repeating: false, count: scalars.count)
        var previousEnd = 0
        for span in spans {
            let count = span.text.unicodeScalars.count
            guard count > 0 else {
                problems.append("empty span at \(span.offset)")
                continue
            }
            guard span.offset >= 0, span.offset + count <= scalars.count else {
                problems.append("span at \(span.offset) (\(count) scalars) past the text's \(scalars.count)")
                continue
            }
            let expected = string(scalars[span.offset..<(span.offset + count)])
            if span.text != expected {
                problems.append("span at \(span.offset) holds \"\(span.text)\", the text there is \"\(expected)\"")
            }
            if span.offset < previousEnd {
                problems.append("span at \(span.offset) starts before the previous one ends (\(previousEnd))")
            }
            previousEnd = max(previousEnd, span.offset + count)
            for index in span.offset..<(span.offset + count) { covered[index] = true }
        }
        var labelEnd = 0
        for (index, scalar) in scalars.enumerated() where !covered[index] && !scalar.properties.isWhitespace {
            if index < labelEnd { continue }
            if let label = label(at: index, in: scalars, covered: covered) {
                labelEnd = index + label
                continue
            }
            let context = string(scalars[max(0, index - 20)..<min(scalars.count, index + 20)])
            problems.append("scalar \(index) \"\(scalar)\" is in no span: …\(context)…")
            if problems.count > 20 { break }
        }
        let uniqueImages = images.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        if uniqueImages != markup.resources {
            problems.append("images shown \(uniqueImages), resources listed \(markup.resources)")
        }
        return problems
    }

    /// The length of the label starting at `index`, when one does: at the start of the text or of
    /// a paragraph, untagged, then a space and tagged text.
    static func label(at index: Int, in scalars: [Unicode.Scalar], covered: [Bool]) -> Int? {
        guard index == 0 || (index >= 2 && scalars[index - 1] == "\n" && scalars[index - 2] == "\n") else { return nil }
        for label in labels {
            let count = label.unicodeScalars.count
            guard index + count + 1 < scalars.count, string(scalars[index..<(index + count)]) == label,
                  scalars[index + count] == " ", covered[index + count + 1],
                  !covered[index..<(index + count)].contains(true) else { continue }
            return count
        }
        return nil
    }

    /// The `data-o` spans in document order, for tests that look at them.
    static func spans(_ markup: ChapterMarkup) throws -> [Span] {
        var problems: [String] = [], spans: [Span] = [], images: [String] = []
        visit(try parse(markup.html), isRoot: true, problems: &problems, spans: &spans, images: &images)
        return spans
    }

    private static func visit(_ element: XMLElement, isRoot: Bool, problems: inout [String], spans: inout [Span],
                              images: inout [String]) {
        let name = element.name ?? ""
        if !isRoot {
            if !allowedElements.contains(name) { problems.append("element <\(name)> is not allowed") }
            for attribute in element.attributes ?? [] {
                let attributeName = attribute.name ?? ""
                let value = attribute.stringValue ?? ""
                if !allowedAttributes.contains(attributeName) {
                    problems.append("attribute \(attributeName)=\"\(value)\" on <\(name)> is not allowed")
                }
                switch attributeName {
                case "class" where !["note", "noteref"].contains(value):
                    problems.append("class \"\(value)\" is not one Lector sets")
                case "src" where name != "img" || !value.hasPrefix("resource/") || value.contains("/..")
                    || value.dropFirst("resource/".count).contains("/"):
                    problems.append("src \"\(value)\" on <\(name)> is not a resource of the book")
                case "data-o" where name != "span" || Int(value) == nil:
                    problems.append("data-o \"\(value)\" on <\(name)>")
                case "colspan", "rowspan":
                    if !(name == "td" || name == "th") || value.isEmpty || !value.allSatisfy(\.isASCII)
                        || !value.allSatisfy(\.isNumber) {
                        problems.append("\(attributeName)=\"\(value)\" on <\(name)>")
                    }
                default: break
                }
            }
            if name == "aside", element.attribute(forName: "class")?.stringValue != "note" {
                problems.append("<aside> that is not a note")
            }
            if name == "img" {
                let source = element.attribute(forName: "src")?.stringValue ?? ""
                images.append(String(source.dropFirst("resource/".count)).removingPercentEncoding ?? source)
            }
        }
        if name == "span", let offset = element.attribute(forName: "data-o")?.stringValue {
            if (element.children ?? []).contains(where: { $0.kind != .text }) {
                problems.append("span at \(offset) holds more than text")
            }
            spans.append(Span(offset: Int(offset) ?? -1, text: element.stringValue ?? ""))
            return
        }
        for child in element.children ?? [] {
            if let childElement = child as? XMLElement {
                visit(childElement, isRoot: false, problems: &problems, spans: &spans, images: &images)
            }
        }
    }

    static func string<S: Sequence<Unicode.Scalar>>(_ scalars: S) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    /// Every chapter of `outline` checked; the problems of each chapter that has any.
    static func problems(inEveryChapterOf outline: BookOutline) throws -> [String] {
        var found: [String] = []
        for entry in outline.chapters {
            let chapter = try outline.loadChapter(entry.index)
            let markup = try outline.chapterMarkup(at: entry.index)
            if markup.index != entry.index { found.append("chapter \(entry.index): markup says index \(markup.index)") }
            for problem in try problems(markup, text: chapter.text) {
                found.append("\(outline.sourceURL.lastPathComponent) chapter \(entry.index) \"\(entry.title)\": \(problem)")
            }
        }
        return found
    }
}
