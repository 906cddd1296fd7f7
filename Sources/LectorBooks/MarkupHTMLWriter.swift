/// Writes a chapter's read-along fragment: allowlisted elements, spoken runs as
/// `<span data-o="N">`, shown-only text, notes and images, escaped for XML and HTML alike.
///
/// A run's text is taken from the chapter's own text at its offset, never from the document, so
/// what a span holds is `Chapter.text`'s scalars N..<N+k by construction:
///
///     var writer = MarkupHTMLWriter(text: Array("Hello.".unicodeScalars))
///     writer.open(OutputElement(tag: "p"))
///     writer.spoken(0..<5)
///     writer.closeAll()
///     writer.html   // <p><span data-o="0">Hello</span></p>
///
/// Void elements are written `<br/>` (an HTML parser reads `</br>` as a second break); every
/// element opened is closed, so the fragment is well-formed whatever events it is given.
struct MarkupHTMLWriter {
    private let text: [Unicode.Scalar]
    private(set) var html = ""
    private(set) var resources: [String] = []
    private var openTags: [String] = []

    init(text: [Unicode.Scalar]) {
        self.text = text
    }

    var depth: Int { openTags.count }

    /// An element to be closed later; a void one (`br`) is written whole.
    mutating func open(_ element: OutputElement) {
        html += "<" + element.tag
        for attribute in element.attributes { appendAttribute(attribute.name, attribute.value) }
        if OutputElement.voidTags.contains(element.tag) {
            html += "/>"
            return
        }
        html += ">"
        openTags.append(element.tag)
    }

    mutating func close() {
        guard let tag = openTags.popLast() else { return }
        html += "</" + tag + ">"
    }

    /// Closes what is open until `depth` elements remain.
    mutating func closeAll(downTo depth: Int = 0) {
        while openTags.count > max(0, depth) { close() }
    }

    /// Chapter scalars `range` (clamped to the text), as one tagged run.
    mutating func spoken(_ range: Range<Int>) {
        let range = range.clamped(to: 0..<text.count)
        guard !range.isEmpty else { return }
        html += "<span data-o=\"\(range.lowerBound)\">"
        appendEscaped(text[range], quotes: false)
        html += "</span>"
    }

    mutating func shown(_ string: String) {
        appendEscaped(string.unicodeScalars, quotes: false)
    }

    mutating func marker(_ string: String) {
        html += "<sup class=\"noteref\">"
        appendEscaped(string.unicodeScalars, quotes: false)
        html += "</sup>"
    }

    mutating func note(_ paragraphs: [String]) {
        html += "<aside class=\"note\">"
        for paragraph in paragraphs {
            html += "<p>"
            appendEscaped(paragraph.unicodeScalars, quotes: false)
            html += "</p>"
        }
        html += "</aside>"
    }

    /// `id` is a manifest id; it goes into the URL percent-encoded.
    mutating func image(id: String, alt: String?) {
        html += "<img"
        appendAttribute("alt", alt ?? "")
        appendAttribute("src", "resource/" + Self.percentEncoded(id))
        html += "/>"
        if !resources.contains(id) { resources.append(id) }
    }

    private mutating func appendAttribute(_ name: String, _ value: String) {
        html += " " + name + "=\""
        appendEscaped(value.unicodeScalars, quotes: true)
        html += "\""
    }

    private mutating func appendEscaped<S: Sequence<Unicode.Scalar>>(_ scalars: S, quotes: Bool) {
        var view = String.UnicodeScalarView()
        for scalar in scalars {
            switch scalar {
            case "&": view.append(contentsOf: "&amp;".unicodeScalars)
            case "<": view.append(contentsOf: "&lt;".unicodeScalars)
            case ">": view.append(contentsOf: "&gt;".unicodeScalars)
            case "\"" where quotes: view.append(contentsOf: "&quot;".unicodeScalars)
            default: view.append(scalar)
            }
        }
        html += String(view)
    }

    /// Unreserved URL characters kept, every other byte of the UTF-8 as `%XX`.
    static func percentEncoded(_ string: String) -> String {
        var result = ""
        for byte in string.utf8 {
            let isUnreserved = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            if isUnreserved {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return result
    }
}

private extension String {
    func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
