import Foundation

/// An element the read-along page may show, mapped from a book's element by an allowlist: the
/// page puts a book's markup into its own document, so nothing that runs, loads, navigates or
/// clashes with the page's ids gets through.
///
///     OutputElement(sourceName: "article", attributes: ["xml:lang": "fr", "id": "c1"])
///     // section lang="fr"
///     OutputElement(sourceName: "a", attributes: ["href": "http://evil.example/", "onclick": "…"])
///     // span (no href: no navigation)
///     OutputElement(sourceName: "font", attributes: [:])   // nil: unwrapped, its children kept
///
/// Attributes kept: `lang` (from `lang` or `xml:lang`, a language tag), `dir` (ltr, rtl, auto),
/// `colspan`/`rowspan` on cells (1 to 4 digits); `class` only as Lector sets it (`note`,
/// `noteref`). Never `id`, `style`, `on…`, `href` or `src`.
struct OutputElement: Sendable, Equatable {
    var tag: String
    /// Sorted by name, values unescaped.
    var attributes: [(name: String, value: String)]

    init(tag: String, attributes: [(name: String, value: String)] = []) {
        self.tag = tag
        self.attributes = attributes
    }

    static func == (lhs: OutputElement, rhs: OutputElement) -> Bool {
        lhs.tag == rhs.tag && lhs.attributes.elementsEqual(rhs.attributes) { $0.name == $1.name && $0.value == $1.value }
    }

    /// Tags shown as they are.
    static let keptTags: Set<String> = [
        "p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "ul", "ol", "li", "dl", "dt", "dd", "table",
        "thead", "tbody", "tfoot", "tr", "td", "th", "caption", "figure", "figcaption", "pre", "code", "em",
        "strong", "i", "b", "u", "s", "sub", "sup", "small", "cite", "q", "abbr", "span", "br", "hr",
    ]
    /// Tags shown as another: sectioning as `section` or `div`, links as `span`.
    static let renamedTags: [String: String] = [
        "section": "section", "article": "section", "div": "div", "aside": "div", "header": "div",
        "footer": "div", "main": "div", "a": "span",
    ]
    /// Elements inside a line of text; every other one starts or ends a block (or a line).
    static let phrasingTags: Set<String> = [
        "code", "em", "strong", "i", "b", "u", "s", "sub", "sup", "small", "cite", "q", "abbr", "span",
    ]
    /// Written `<br/>`, never with an end tag (an HTML parser reads `</br>` as another `<br>`).
    static let voidTags: Set<String> = ["br", "hr", "img"]

    /// Longest `lang` kept: a BCP 47 tag is short; anything longer is not one.
    static let maximumLanguageTagLength = 35

    /// `sourceName` is the lowercased local name.
    init?(sourceName: String, attributes: [String: String]) {
        guard let tag = Self.keptTags.contains(sourceName) ? sourceName : Self.renamedTags[sourceName] else { return nil }
        var kept: [(name: String, value: String)] = []
        if let language = Self.languageTag(attributes["lang"] ?? attributes["xml:lang"]) {
            kept.append(("lang", language))
        }
        if let direction = attributes["dir"]?.lowercased(), ["ltr", "rtl", "auto"].contains(direction) {
            kept.append(("dir", direction))
        }
        if tag == "td" || tag == "th" {
            for name in ["colspan", "rowspan"] {
                if let span = Self.cellSpan(attributes[name]) { kept.append((name, span)) }
            }
        }
        self.init(tag: tag, attributes: kept.sorted { $0.name < $1.name })
    }

    /// `en`, `pt-BR`, `zh-Hant-TW`: letters, digits and hyphens, starting with a letter.
    static func languageTag(_ value: String?) -> String? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty,
              value.utf8.count <= maximumLanguageTagLength,
              value.unicodeScalars.first.map({ $0.isASCII && $0.properties.isAlphabetic }) == true,
              value.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") })
        else { return nil }
        return value
    }

    /// `"2"` → "2"; `"0"`, `"-1"`, `"2;x"` or five digits and more → nil.
    static func cellSpan(_ value: String?) -> String? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), (1...4).contains(value.utf8.count),
              value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int(value), number > 0
        else { return nil }
        return String(number)
    }
}
