import Foundation

/// A forgiving reader for content documents that are not well-formed XML, the way a browser
/// reads sloppy HTML: what can be understood is passed to a `TagSoupHandler` as elements and
/// text, and nothing stops it. `XHTMLTextExtractor` falls back to it when `XMLParser` refuses a
/// document, and feeds the same text builder from it, so the same words come out.
///
/// What it understands:
/// - Start tags `<name attr="v" attr='v' attr=v attr>`, end tags `</name>`, self-closing tags
///   `<br/>`, and HTML's void elements without the slash (`<br>`, `<img …>`, `<hr>`).
/// - Comments, CDATA sections (read as text), processing instructions and `<!DOCTYPE …>`.
/// - `<script>` and `<style>` content is raw text up to its end tag.
/// - Character references: numeric ones, XML's five and HTML 4's named ones (also without the
///   semicolon, as HTML allows); an unknown `&name;` is dropped, a bare `&` is kept.
///
/// What it forgives:
/// - Something in angle brackets that is not a tag is text: `<debian-live@lists.debian.org>`
///   reads as `debian-live@lists.debian.org` (the brackets are dropped), and a `<` that starts
///   no tag at all (`a < b`, `<see the notes>`) is kept. A name HTML does not know is a tag only
///   when it is namespaced, self-closing, has attribute values or is closed later on; a known
///   one is a tag even with garbled attributes (`<img src="a.png" / >`).
/// - Elements are kept on a stack. An end tag closes its element and every element opened
///   inside it (`<p>Not <b>closed.</p>`); an end tag without an open element is ignored; what
///   is still open at the end of the file is closed there.
/// - A few HTML rules close elements implicitly: a block start closes an open `<p>`, `<li>`
///   closes the previous `<li>`, `<dt>`/`<dd>` and table rows and cells close their siblings,
///   anything that belongs in the body closes an unclosed `<head>`, and any tag closes an
///   unclosed `<title>`.
///
///     TagSoupParser.parse("<p>Mail <me@example.org> or <b>not.</p>", handler: extractor)
///     // start p, "Mail ", "me@example.org", " or ", start b, "not.", end b, end p
enum TagSoupParser {
    /// Why bytes could not be read as text at all, e.g. "binary data (it contains NUL bytes)".
    struct NotText: Error {
        var detected: String
    }

    /// The document's text: by its byte order mark, else UTF-8, else the encoding its XML
    /// declaration or `<meta charset>` names, else Windows-1252; refused when it is binary data.
    static func decode(_ data: Data) throws(NotText) -> String {
        let bytes = [UInt8](data)
        let hasByteOrderMark = bytes.starts(with: [0xEF, 0xBB, 0xBF]) || bytes.starts(with: [0xFF, 0xFE])
            || bytes.starts(with: [0xFE, 0xFF])
        let text: String
        if !hasByteOrderMark, !bytes.contains(0), String(data: data, encoding: .utf8) == nil,
           let declared = declaredEncoding(bytes.prefix(1024)), let decoded = String(data: data, encoding: declared) {
            text = decoded
        } else {
            do throws(BookError) {
                text = try PlainTextDecoder.decode(data, file: URL(fileURLWithPath: "/")).text
            } catch {
                guard case .unsupportedEncoding(_, let detected) = error else { throw NotText(detected: "\(error)") }
                throw NotText(detected: detected ?? "an unsupported encoding")
            }
        }
        var controls = 0, count = 0
        for byte in text.utf8 {
            if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0C, byte != 0x0D { controls += 1 }
            if byte & 0xC0 != 0x80 { count += 1 }
        }
        if controls * 100 > max(1, count) {
            throw NotText(detected: "binary data (too many control characters)")
        }
        return text
    }

    /// Parses `text` to the end (or until the handler has stopped), closing whatever is left open.
    static func parse(_ text: String, handler: some TagSoupHandler) {
        var bytes = Array(text.utf8)
        if bytes.contains(carriageReturn) { bytes = normalizedNewlines(bytes) }
        var run = Run(bytes: bytes, handler: handler)
        run.parse()
    }

    // MARK: Element rules

    static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
    ]
    static let rawTextElements: Set<String> = ["script", "style"]
    /// Elements whose start closes an open `<p>` (HTML's list, plus `li`, `dt`, `dd`).
    static let paragraphClosers: Set<String> = [
        "address", "article", "aside", "blockquote", "center", "dd", "details", "dialog", "dir", "div", "dl", "dt",
        "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
        "hgroup", "hr", "li", "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "ul",
    ]
    /// Elements an implicit close never reaches past.
    static let scopeBoundaries: Set<String> = ["html", "body", "table", "td", "th", "caption", "button", "object", "template"]
    static let headElements: Set<String> = ["title", "meta", "link", "style", "script", "base", "noscript", "template"]
    /// HTML and SVG element names a garbled tag may still be recognised by.
    static let knownElements: Set<String> = XHTMLTextExtractor.paragraphBlocks.union(XHTMLTextExtractor.lineBlocks)
        .union(XHTMLTextExtractor.skippedElements).union(voidElements).union(headElements).union([
            "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "blink", "cite", "code", "col", "colgroup", "data",
            "del", "dfn", "em", "font", "html", "i", "image", "ins", "kbd", "label", "mark", "menu", "dir", "q",
            "rb", "rtc", "ruby", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u",
            "var", "picture", "map", "switch", "option", "optgroup", "output", "progress", "meter", "g",
            "path", "text", "tspan", "use", "rect", "circle", "line", "polygon", "polyline", "ellipse", "defs",
        ])

    // MARK: Character references

    static let xmlEntities: [String: UInt32] = ["amp": 0x26, "lt": 0x3C, "gt": 0x3E, "quot": 0x22, "apos": 0x27]

    /// `text` with character references decoded: `&amp;` `&#8212;` `&#x2014;` `&mdash;` `&nbsp`
    /// (HTML's semicolon-less form); an unknown `&name;` is dropped, a `&` starting no reference kept.
    static func decodeReferences<Bytes: Collection<UInt8>>(_ text: Bytes) -> String {
        guard text.contains(ampersand) else { return String(decoding: text, as: UTF8.self) }
        let bytes = Array(text)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == ampersand else {
                output.append(bytes[index])
                index += 1
                continue
            }
            if let (scalar, end) = reference(in: bytes, at: index) {
                if let scalar { output.append(contentsOf: Array(String(Character(scalar)).utf8)) }
                index = end
            } else {
                output.append(ampersand)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func decodeReferences(_ text: String) -> String {
        decodeReferences(text.utf8)
    }

    /// The reference starting at `bytes[start]` (an `&`): what it stands for (nil to drop it)
    /// and where it ends; nil when this `&` starts no reference.
    private static func reference(in bytes: [UInt8], at start: Int) -> (Unicode.Scalar?, Int)? {
        var index = start + 1
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "#") {
            index += 1
            let hex = index < bytes.count && (bytes[index] | 0x20) == UInt8(ascii: "x")
            if hex { index += 1 }
            let digitsStart = index
            var value: UInt32 = 0
            while index < bytes.count, let digit = digitValue(bytes[index], hex: hex), index - digitsStart < 8 {
                value = value * (hex ? 16 : 10) + digit
                index += 1
            }
            guard index > digitsStart else { return nil }
            if index < bytes.count, bytes[index] == semicolon { index += 1 }
            if (0x80...0x9F).contains(value), let mapped = PlainTextDecoder.windows1252High[Int(value - 0x80)] {
                value = mapped
            }
            guard value != 0, let scalar = Unicode.Scalar(value) else { return (nil, index) }
            return (scalar, index)
        }
        guard isLetter(bytes[index]) else { return nil }
        while index < bytes.count, index - start <= 32, isLetter(bytes[index]) || isDigit(bytes[index]) { index += 1 }
        let name = String(decoding: bytes[(start + 1)..<index], as: UTF8.self)
        let known = (xmlEntities[name] ?? HTMLEntities.codePoints[name]).flatMap { Unicode.Scalar($0) }
        if index < bytes.count, bytes[index] == semicolon {
            return (known, index + 1)
        }
        guard let known else { return nil }
        return (known, index)
    }

    private static func digitValue(_ byte: UInt8, hex: Bool) -> UInt32? {
        if isDigit(byte) { return UInt32(byte - UInt8(ascii: "0")) }
        guard hex else { return nil }
        let lower = byte | 0x20
        guard lower >= UInt8(ascii: "a"), lower <= UInt8(ascii: "f") else { return nil }
        return UInt32(lower - UInt8(ascii: "a") + 10)
    }

    // MARK: Bytes

    static let lessThan = UInt8(ascii: "<"), greaterThan = UInt8(ascii: ">"), slash = UInt8(ascii: "/")
    static let ampersand = UInt8(ascii: "&"), semicolon = UInt8(ascii: ";"), equals = UInt8(ascii: "=")
    static let carriageReturn = UInt8(ascii: "\r"), newline = UInt8(ascii: "\n")
    static let doubleQuote = UInt8(ascii: "\""), singleQuote = UInt8(ascii: "'")

    static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }

    /// Letters, digits, `- _ : .` and any non-ASCII byte, as XML names allow.
    static func isNameByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == 0x2D || byte == 0x5F || byte == 0x3A || byte == 0x2E || byte >= 0x80
    }

    /// Anything but space, quotes, `<`, `>`, `/` and `=`.
    static func isAttributeNameByte(_ byte: UInt8) -> Bool {
        !isSpace(byte) && byte != doubleQuote && byte != singleQuote && byte != lessThan && byte != greaterThan
            && byte != slash && byte != equals
    }

    /// Anything but space, quotes, `<`, `>` and a backtick.
    static func isUnquotedValueByte(_ byte: UInt8) -> Bool {
        !isSpace(byte) && byte != doubleQuote && byte != singleQuote && byte != lessThan && byte != greaterThan
            && byte != 0x60
    }

    /// CR LF and lone CR become LF, as an XML parser does.
    private static func normalizedNewlines(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == carriageReturn {
                output.append(newline)
                if index + 1 < bytes.count, bytes[index + 1] == newline { index += 1 }
            } else {
                output.append(bytes[index])
            }
            index += 1
        }
        return output
    }

    /// The encoding an XML declaration (`encoding="…"`) or `<meta charset=…>` names, when it is
    /// one Foundation decodes and not one `PlainTextDecoder` already covers (UTF-8, and
    /// ISO-8859-1 or Windows-1252, its fallback).
    private static func declaredEncoding(_ head: ArraySlice<UInt8>) -> String.Encoding? {
        let text = String(decoding: head, as: UTF8.self).lowercased()
        var name: Substring?
        for key in ["encoding=", "charset="] {
            guard let range = text.range(of: key) else { continue }
            let rest = text[range.upperBound...].drop { $0 == "\"" || $0 == "'" || $0 == " " }
            name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
            break
        }
        switch name {
        case "iso-8859-2", "latin2": return .isoLatin2
        case "windows-1250", "cp1250": return .windowsCP1250
        case "windows-1251", "cp1251": return .windowsCP1251
        case "windows-1253", "cp1253": return .windowsCP1253
        case "windows-1254", "cp1254": return .windowsCP1254
        case "shift_jis", "shift-jis", "sjis", "x-sjis", "windows-31j", "cp932": return .shiftJIS
        case "euc-jp": return .japaneseEUC
        case "iso-2022-jp": return .iso2022JP
        default: return nil
        }
    }
}

extension TagSoupParser {
    /// One pass over a document's UTF-8 bytes.
    private struct Run<Handler: TagSoupHandler> {
        let bytes: [UInt8]
        let handler: Handler
        var index = 0
        /// Elements open, innermost last: the name as written and its lowercased local name.
        var open: [(name: String, local: String)] = []
        /// Unknown element names seen, with where their next end tag is (nil: nowhere after).
        private var endTags: [String: Int?] = [:]
        private var line = 1
        private var lineCountedTo = 0

        init(bytes: [UInt8], handler: Handler) {
            self.bytes = bytes
            self.handler = handler
        }

        mutating func parse() {
            while index < bytes.count, !handler.stoppedOnPurpose {
                if bytes[index] == lessThan {
                    markup()
                } else {
                    let end = find(lessThan, from: index) ?? bytes.count
                    text(index..<end, decodingReferences: true)
                    index = end
                }
            }
            let last = lineAt(bytes.count)
            while let element = open.popLast(), !handler.stoppedOnPurpose {
                handler.endElement(element.name, line: last)
            }
        }

        /// The 1-based line of `position`; positions asked for only grow (an earlier one gets
        /// the latest line).
        private mutating func lineAt(_ position: Int) -> Int {
            while lineCountedTo < min(position, bytes.count) {
                if bytes[lineCountedTo] == newline { line += 1 }
                lineCountedTo += 1
            }
            return line
        }

        private func find(_ byte: UInt8, from start: Int) -> Int? {
            var position = start
            while position < bytes.count {
                if bytes[position] == byte { return position }
                position += 1
            }
            return nil
        }

        private func find(_ pattern: String, from start: Int) -> Int? {
            let needle = Array(pattern.utf8)
            var position = start
            while let candidate = find(needle[0], from: position) {
                guard candidate + needle.count <= bytes.count else { return nil }
                if bytes[candidate..<(candidate + needle.count)].elementsEqual(needle) { return candidate }
                position = candidate + 1
            }
            return nil
        }

        private func hasPrefix(_ prefix: String, at position: Int) -> Bool {
            let needle = Array(prefix.utf8)
            guard position + needle.count <= bytes.count else { return false }
            return bytes[position..<(position + needle.count)].elementsEqual(needle)
        }

        private mutating func text(_ range: Range<Int>, decodingReferences: Bool) {
            guard !range.isEmpty else { return }
            let first = bytes[range].firstIndex { !isSpace($0) } ?? range.lowerBound
            let slice = bytes[range]
            let string = decodingReferences
                ? TagSoupParser.decodeReferences(slice)
                : String(decoding: slice, as: UTF8.self)
            handler.characters(string, line: lineAt(first))
        }

        /// At a `<`: a comment, CDATA, declaration, processing instruction, tag, or text.
        private mutating func markup() {
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            if hasPrefix("<!--", at: index) {
                index = find("-->", from: index + 4).map { $0 + 3 } ?? bytes.count
            } else if hasPrefix("<![CDATA[", at: index) {
                let end = find("]]>", from: index + 9) ?? bytes.count
                text((index + 9)..<end, decodingReferences: false)
                index = min(bytes.count, end + 3)
            } else if next == UInt8(ascii: "?") {
                index = (find("?>", from: index + 2).map { $0 + 2 } ?? find(greaterThan, from: index + 2).map { $0 + 1 })
                    ?? bytes.count
            } else if next == UInt8(ascii: "!") {
                index = find(greaterThan, from: index + 2).map { $0 + 1 } ?? bytes.count
            } else if next == slash {
                endTag()
            } else if isLetter(next) {
                startTag()
            } else {
                literalLessThan()
            }
        }

        private mutating func literalLessThan() {
            handler.characters("<", line: lineAt(index))
            index += 1
        }

        private mutating func endTag() {
            let start = index
            var position = index + 2
            guard position < bytes.count, isLetter(bytes[position]) else {
                // "</>" and "</ p>" are dropped, as browsers do, when a ">" comes before the next "<".
                let closing = find(greaterThan, from: position), nextTag = find(lessThan, from: position)
                if let closing, nextTag.map({ closing < $0 }) ?? true { index = closing + 1 } else { literalLessThan() }
                return
            }
            while position < bytes.count, isNameByte(bytes[position]) { position += 1 }
            let name = String(decoding: bytes[(start + 2)..<position], as: UTF8.self)
            let closing = find(greaterThan, from: position), nextTag = find(lessThan, from: position)
            if let closing, nextTag.map({ closing < $0 }) ?? true {
                index = closing + 1
            } else {
                index = position   // "</p" cut short by the next tag or the end of the file
            }
            close(name, line: lineAt(start))
        }

        private mutating func startTag() {
            let start = index
            var parsed = parseTag(at: start, forgiving: false)
            if let tag = parsed, !isRecognised(tag, at: start) { parsed = nil }
            if parsed == nil {
                // Not a tag: "<debian-live@lists.debian.org>" reads as the address inside.
                var position = start + 1
                while position < bytes.count, !isSpace(bytes[position]), bytes[position] != lessThan,
                      bytes[position] != greaterThan { position += 1 }
                if position < bytes.count, bytes[position] == greaterThan {
                    text((start + 1)..<position, decodingReferences: true)
                    index = position + 1
                    return
                }
                // A known element with garbled attributes (`<img src="a.png" / >`, `<p class=x"y">`)
                // is still a tag, as a browser reads it; anything else is a literal "<".
                parsed = parseTag(at: start, forgiving: true)
            }
            guard let tag = parsed else {
                literalLessThan()
                return
            }
            let local = MarkupElement.localName(tag.name.lowercased())
            let line = lineAt(start)
            closeImplicitly(before: local, line: line)
            handler.startElement(tag.name, attributes: tag.attributes, line: line)
            index = tag.end
            if tag.selfClosing || voidElements.contains(local) {
                handler.endElement(tag.name, line: line)
                return
            }
            open.append((tag.name, local))
            if rawTextElements.contains(local), let end = endTag(local, from: index) {
                text(index..<end, decodingReferences: false)
                index = end
            }
        }

        /// `<name attr="v" attr='v' attr=v attr/>` at `start`, or nil when the bytes there are
        /// no such tag (an attribute without a name, a quote never closed, no `>`). `forgiving`,
        /// for known element names only, skips stray characters between attributes and ends the
        /// tag at a `<` or the end of the file, as browsers do.
        private func parseTag(at start: Int, forgiving: Bool) -> (name: String, attributes: [String: String], selfClosing: Bool, end: Int)? {
            var position = start + 1
            while position < bytes.count, isNameByte(bytes[position]) { position += 1 }
            let name = String(decoding: bytes[(start + 1)..<position], as: UTF8.self)
            if forgiving, !knownElements.contains(MarkupElement.localName(name.lowercased())), !name.contains(":") {
                return nil
            }
            var attributes: [String: String] = [:]
            var afterQuote = false
            while true {
                var sawSpace = false
                while position < bytes.count, isSpace(bytes[position]) {
                    position += 1
                    sawSpace = true
                }
                guard position < bytes.count else { return forgiving ? (name, attributes, false, position) : nil }
                if bytes[position] == greaterThan { return (name, attributes, false, position + 1) }
                if bytes[position] == slash, position + 1 < bytes.count, bytes[position + 1] == greaterThan {
                    return (name, attributes, true, position + 2)
                }
                if forgiving, bytes[position] == lessThan { return (name, attributes, false, position) }
                guard sawSpace || afterQuote || forgiving else { return nil }
                let nameStart = position
                while position < bytes.count, isAttributeNameByte(bytes[position]) { position += 1 }
                guard position > nameStart else {
                    guard forgiving else { return nil }
                    position += 1   // a stray quote, slash or equals sign
                    afterQuote = true
                    continue
                }
                let attribute = String(decoding: bytes[nameStart..<position], as: UTF8.self).lowercased()
                var value = ""
                afterQuote = false
                var cursor = position
                while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
                if cursor < bytes.count, bytes[cursor] == equals {
                    cursor += 1
                    while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
                    guard cursor < bytes.count else { return forgiving ? (name, attributes, false, cursor) : nil }
                    let quote = bytes[cursor]
                    if quote == doubleQuote || quote == singleQuote {
                        guard let close = find(quote, from: cursor + 1) else { return nil }
                        value = TagSoupParser.decodeReferences(bytes[(cursor + 1)..<close])
                        position = close + 1
                        afterQuote = true
                    } else {
                        let valueStart = cursor
                        while cursor < bytes.count, isUnquotedValueByte(bytes[cursor]) { cursor += 1 }
                        guard cursor > valueStart || forgiving else { return nil }
                        value = TagSoupParser.decodeReferences(bytes[valueStart..<cursor])
                        position = cursor
                        afterQuote = cursor == valueStart
                    }
                }
                if attributes[attribute] == nil { attributes[attribute] = value }
            }
        }

        /// Whether a syntactically valid tag is markup rather than text in brackets: a known
        /// element, a namespaced or self-closing one, one with attribute values, or one whose end
        /// tag follows. `<see the notes>` and `<www.example.org>` are text.
        private mutating func isRecognised(_ tag: (name: String, attributes: [String: String], selfClosing: Bool, end: Int),
                                           at start: Int) -> Bool {
            let name = tag.name.lowercased()
            if knownElements.contains(MarkupElement.localName(name)) || name.contains(":") || tag.selfClosing
                || tag.attributes.values.contains(where: { !$0.isEmpty }) { return true }
            if let known = endTags[name], known.map({ $0 > start }) ?? true { return known != nil }
            let found = endTag(name, from: tag.end)
            endTags[name] = found
            return found != nil
        }

        /// Where `</name` (any case) starts at or after `start`, if anywhere; `name` lowercased.
        private func endTag(_ name: String, from start: Int) -> Int? {
            let name = Array(name.utf8)
            var position = start
            while let candidate = find(lessThan, from: position) {
                let nameStart = candidate + 2
                if nameStart + name.count <= bytes.count, bytes[candidate + 1] == slash,
                   zip(bytes[nameStart..<(nameStart + name.count)], name).allSatisfy({ lowered($0) == $1 }),
                   nameStart + name.count == bytes.count || !isNameByte(bytes[nameStart + name.count]) {
                    return candidate
                }
                position = candidate + 1
            }
            return nil
        }

        private func lowered(_ byte: UInt8) -> UInt8 {
            byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
        }

        /// An end tag: closes its element and everything opened inside it; ignored when no such
        /// element is open. `</br>` is read as `<br>`, as browsers do.
        private mutating func close(_ name: String, line: Int) {
            let local = MarkupElement.localName(name.lowercased())
            if voidElements.contains(local) {
                if local == "br" {
                    handler.startElement(name, attributes: [:], line: line)
                    handler.endElement(name, line: line)
                }
                return
            }
            guard let position = open.lastIndex(where: { $0.local == local }) else { return }
            closeDown(to: position, line: line)
        }

        private mutating func closeDown(to position: Int, line: Int) {
            while open.count > position, !handler.stoppedOnPurpose {
                handler.endElement(open.removeLast().name, line: line)
            }
        }

        /// HTML's implied end tags, for the elements books leave open.
        private mutating func closeImplicitly(before local: String, line: Int) {
            if let top = open.last?.local, top == "title" { closeDown(to: open.count - 1, line: line) }
            if !headElements.contains(local), let head = open.lastIndex(where: { $0.local == "head" }) {
                closeDown(to: head, line: line)
            }
            switch local {
            case "li": closeOpen(["li"], within: ["ul", "ol", "menu"], line: line)
            case "dt", "dd": closeOpen(["dt", "dd"], within: ["dl"], line: line)
            case "tr": closeOpen(["tr"], within: ["table", "tbody", "thead", "tfoot"], line: line)
            case "td", "th": closeOpen(["td", "th"], within: ["tr", "table"], line: line)
            case "tbody", "thead", "tfoot": closeOpen(["tbody", "thead", "tfoot"], within: ["table"], line: line)
            default: break
            }
            if paragraphClosers.contains(local) { closeOpen(["p"], within: [], line: line) }
        }

        /// Closes the innermost open element named in `names`, unless an element in `within`
        /// (or a scope boundary such as a table cell) is open inside it.
        private mutating func closeOpen(_ names: Set<String>, within containers: Set<String>, line: Int) {
            for position in open.indices.reversed() {
                let local = open[position].local
                if names.contains(local) {
                    closeDown(to: position, line: line)
                    return
                }
                if containers.contains(local) || scopeBoundaries.contains(local) { return }
            }
        }
    }
}
