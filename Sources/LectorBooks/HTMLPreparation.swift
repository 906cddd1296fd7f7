/// One linear pass over a sloppy content document before libxml2's HTML parser reads it, for
/// what books mean but an HTML parser would lose:
///
/// - Character references are made unambiguous: `&copy 1901` (no semicolon, as HTML allows)
///   becomes `&#xA9; 1901`, an unknown `&bogus;` is dropped, a bare `&` (`AT&T`) is `&amp;`.
/// - A CDATA section (`<![CDATA[x < y]]>`) is text, escaped.
/// - Something in angle brackets that is no tag is text: `<debian-live@lists.debian.org>`,
///   `<www.example.org>`, `<see the notes>`, `a < b`. A known HTML element, a namespaced one, one
///   with attribute values, a self-closing one or one whose end tag follows is a tag.
/// - `</ p>` and `</>` are dropped, as browsers do.
/// - A tag with more than `XMLDocumentParsing.maximumAttributes` attributes keeps none: libxml2
///   checks each attribute against all before it.
///
/// `flat` also drops every tag but the head's and raw-text elements' and void ones, and turns
/// block tags into `<br>`: the text of a document nested too deep to parse (see
/// `HTMLDocumentParser.maximumDepth`), with line breaks where its blocks were.
enum HTMLPreparation {
    static func prepared(_ text: String, flat: Bool = false) -> [UInt8] {
        var run = Run(bytes: Array(text.utf8), flat: flat)
        run.prepare()
        return run.output
    }

    static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
    ]
    /// Kept when flattening: they do not nest, and they keep the head and scripts unread.
    static let flatKeptElements: Set<String> = voidElements.union(["html", "head", "body", "title", "script", "style"])
    static let blockElements: Set<String> = XHTMLTextExtractor.paragraphBlocks.union(XHTMLTextExtractor.lineBlocks)
    /// HTML and SVG element names a garbled tag is still recognised by.
    static let knownElements: Set<String> = blockElements.union(XHTMLTextExtractor.skippedElements)
        .union(flatKeptElements).union([
            "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "blink", "cite", "code", "col", "colgroup", "data",
            "del", "dfn", "em", "font", "i", "image", "ins", "kbd", "label", "mark", "menu", "dir", "q",
            "rb", "rtc", "ruby", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u",
            "var", "picture", "map", "switch", "option", "optgroup", "output", "progress", "meter", "g",
            "path", "text", "tspan", "use", "rect", "circle", "line", "polygon", "polyline", "ellipse", "defs",
            "noscript", "base",
        ])

    static let lessThan = UInt8(ascii: "<"), greaterThan = UInt8(ascii: ">"), slash = UInt8(ascii: "/")
    static let ampersand = UInt8(ascii: "&"), semicolon = UInt8(ascii: ";"), equals = UInt8(ascii: "=")

    static func isLetter(_ byte: UInt8) -> Bool { (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) }
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }

    /// Letters, digits, `- _ : .` and any non-ASCII byte, as XML names allow.
    static func isNameByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == 0x2D || byte == 0x5F || byte == 0x3A || byte == 0x2E || byte >= 0x80
    }

    static func lowercased(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    // MARK: Character references

    static let xmlEntities: [String: UInt32] = ["amp": 0x26, "lt": 0x3C, "gt": 0x3E, "quot": 0x22, "apos": 0x27]

    /// The reference starting at `bytes[start]` (an `&`): what it stands for (nil to drop it)
    /// and where it ends; nil when this `&` starts no reference.
    static func reference(in bytes: [UInt8], at start: Int) -> (Unicode.Scalar?, Int)? {
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
}

extension HTMLPreparation {
    private struct Run {
        let bytes: [UInt8]
        let flat: Bool
        var output: [UInt8] = []
        var index = 0
        /// Only spaces since the last `<br>` a flat reading put in: the next one would add nothing.
        var afterBreak = false
        /// Where the last `</name` of each (lowercased) name starts: "is this closed later?" in O(1).
        let lastEndTag: [String: Int]

        init(bytes: [UInt8], flat: Bool) {
            self.bytes = bytes
            self.flat = flat
            var lastEndTag: [String: Int] = [:]
            var position = 0
            while position + 2 < bytes.count {
                if bytes[position] == lessThan, bytes[position + 1] == slash, isLetter(bytes[position + 2]) {
                    var end = position + 2
                    while end < bytes.count, isNameByte(bytes[end]) { end += 1 }
                    lastEndTag[lowercased(bytes[(position + 2)..<end])] = position
                    position = end
                } else {
                    position += 1
                }
            }
            self.lastEndTag = lastEndTag
            output.reserveCapacity(bytes.count + bytes.count / 8)
        }

        mutating func prepare() {
            while index < bytes.count {
                switch bytes[index] {
                case lessThan: markup()
                case ampersand: characterReference()
                default:
                    if afterBreak, !isSpace(bytes[index]) { afterBreak = false }
                    output.append(bytes[index])
                    index += 1
                }
            }
        }

        private func find(_ pattern: String, from start: Int) -> Int? {
            let needle = Array(pattern.utf8)
            var position = start
            while position + needle.count <= bytes.count {
                if bytes[position] == needle[0], bytes[position..<(position + needle.count)].elementsEqual(needle) {
                    return position
                }
                position += 1
            }
            return nil
        }

        private func hasPrefix(_ prefix: String, at position: Int) -> Bool {
            let needle = Array(prefix.utf8)
            guard position + needle.count <= bytes.count else { return false }
            return bytes[position..<(position + needle.count)].elementsEqual(needle)
        }

        /// The first `>` or `<` after `start`, or the end: where a tag starting before it must end.
        private func tagEnd(from start: Int) -> Int {
            var position = start
            while position < bytes.count, bytes[position] != greaterThan, bytes[position] != lessThan { position += 1 }
            return position
        }

        private mutating func copy(_ range: Range<Int>) {
            output.append(contentsOf: bytes[range])
            index = range.upperBound
        }

        private mutating func escaped(_ range: Range<Int>) {
            for byte in bytes[range] {
                switch byte {
                case lessThan: output.append(contentsOf: Array("&lt;".utf8))
                case greaterThan: output.append(contentsOf: Array("&gt;".utf8))
                case ampersand: output.append(contentsOf: Array("&amp;".utf8))
                default: output.append(byte)
                }
            }
            index = range.upperBound
        }

        private mutating func characterReference() {
            guard let (scalar, end) = reference(in: bytes, at: index) else {
                output.append(contentsOf: Array("&amp;".utf8))
                index += 1
                return
            }
            if let scalar { output.append(contentsOf: Array("&#x\(String(scalar.value, radix: 16));".utf8)) }
            index = end
        }

        /// Past the `]>` of `<!DOCTYPE … [ … ]>` at `index`, or nil when it is no DOCTYPE with a subset.
        private func internalSubsetEnd() -> Int? {
            let name = Array("<!doctype".utf8)
            guard index + name.count <= bytes.count,
                  zip(bytes[index..<(index + name.count)], name).allSatisfy({ $0 | 0x20 == $1 | 0x20 }) else { return nil }
            var position = index + name.count
            while position < bytes.count, bytes[position] != greaterThan, bytes[position] != UInt8(ascii: "[") { position += 1 }
            guard position < bytes.count, bytes[position] == UInt8(ascii: "[") else { return nil }
            while let close = find("]", from: position) {
                var after = close + 1
                while after < bytes.count, isSpace(bytes[after]) { after += 1 }
                if after < bytes.count, bytes[after] == greaterThan { return after + 1 }
                position = close + 1
            }
            return bytes.count
        }

        private mutating func markup() {
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            if hasPrefix("<!--", at: index) {
                // Unterminated: dropped to the end, as browsers do.
                guard let end = find("-->", from: index + 4) else { index = bytes.count; return }
                copy(index..<(end + 3))
            } else if hasPrefix("<![CDATA[", at: index) {
                let end = find("]]>", from: index + 9) ?? bytes.count
                escaped((index + 9)..<end)
                index = min(bytes.count, end + 3)
            } else if let end = internalSubsetEnd() {
                // A DOCTYPE's internal subset (entity declarations) is no text; the HTML parser
                // would end the DOCTYPE at its first ">" and read the rest aloud.
                output.append(contentsOf: Array("<!DOCTYPE html>".utf8))
                index = end
            } else if next == UInt8(ascii: "!") || next == UInt8(ascii: "?") {
                // A declaration or processing instruction without its ">" is text: libxml2 would
                // look for one to the end of the file for each.
                let end = tagEnd(from: index + 2)
                guard end < bytes.count, bytes[end] == greaterThan else {
                    output.append(contentsOf: Array("&lt;".utf8))
                    index += 1
                    return
                }
                copy(index..<(end + 1))
            } else if next == slash {
                endTag()
            } else if isLetter(next) {
                startTag()
            } else {
                output.append(contentsOf: Array("&lt;".utf8))
                index += 1
            }
        }

        private mutating func endTag() {
            var nameEnd = index + 2
            while nameEnd < bytes.count, isNameByte(bytes[nameEnd]) { nameEnd += 1 }
            let end = tagEnd(from: nameEnd)
            let closed = end < bytes.count && bytes[end] == greaterThan
            guard nameEnd > index + 2, isLetter(bytes[index + 2]) else {
                // "</>" and "</ p>" are dropped when a ">" comes before the next "<".
                if closed { index = end + 1 } else { output.append(contentsOf: Array("&lt;".utf8)); index += 1 }
                return
            }
            guard flat else { return copy(index..<nameEnd) }
            flatten(MarkupElement.localName(lowercased(bytes[(index + 2)..<nameEnd])), through: closed ? end + 1 : end)
        }

        private mutating func startTag() {
            var nameEnd = index + 1
            while nameEnd < bytes.count, isNameByte(bytes[nameEnd]) { nameEnd += 1 }
            let name = lowercased(bytes[(index + 1)..<nameEnd])
            let local = MarkupElement.localName(name)
            let end = tagEnd(from: nameEnd)
            let closed = end < bytes.count && bytes[end] == greaterThan
            let after = nameEnd < bytes.count ? bytes[nameEnd] : 0
            let endsName = isSpace(after) || after == greaterThan || nameEnd == bytes.count
                || (after == slash && nameEnd + 1 < bytes.count && bytes[nameEnd + 1] == greaterThan)
            var isTag = knownElements.contains(local)
            if !isTag, endsName {
                isTag = name.contains(":") || bytes[nameEnd..<end].contains(equals)
                    || (closed && bytes[end - 1] == slash) || (lastEndTag[name] ?? -1) > index
            }
            guard isTag else {
                // Text in brackets: "<name@host>" or "<see the notes>". Only the "<" needs escaping.
                output.append(contentsOf: Array("&lt;".utf8))
                index += 1
                return
            }
            let (attributes, attributesEnd) = attributeCount(from: nameEnd)
            if attributes > XMLDocumentParsing.maximumAttributes {
                output.append(lessThan)
                output.append(contentsOf: bytes[(index + 1)..<nameEnd])
                output.append(greaterThan)
                index = attributesEnd
                return
            }
            guard flat else { return copy(index..<nameEnd) }
            flatten(local, through: closed ? end + 1 : end)
        }

        /// Attributes in a start tag from `start` (after its name), following quotes as libxml2
        /// does, and where the tag ends (after its `>`, or at a `<` or the end).
        private func attributeCount(from start: Int) -> (count: Int, end: Int) {
            var position = start, count = 0, inName = false
            while position < bytes.count {
                let byte = bytes[position]
                if byte == greaterThan { return (count, position + 1) }
                if byte == lessThan { return (count, position) }
                if isSpace(byte) || byte == slash {
                    inName = false
                } else if byte == equals {
                    inName = false
                    position += 1
                    while position < bytes.count, isSpace(bytes[position]) { position += 1 }
                    let quote = position < bytes.count ? bytes[position] : 0
                    if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                        position += 1
                        while position < bytes.count, bytes[position] != quote { position += 1 }
                    } else {
                        // Stops at "<" too: "<p/a=x<p/a=x…" must not scan to the end from every tag.
                        while position < bytes.count, !isSpace(bytes[position]), bytes[position] != greaterThan,
                              bytes[position] != lessThan {
                            position += 1
                        }
                        continue
                    }
                } else if !inName {
                    inName = true
                    count += 1
                }
                position += 1
            }
            return (count, position)
        }

        /// A tag of a document read flat, from `index` to `end`: kept, a `<br>`, or dropped.
        private mutating func flatten(_ local: String, through end: Int) {
            if flatKeptElements.contains(local) {
                afterBreak = false
                copy(index..<end)
                if end > 0, bytes[end - 1] != greaterThan { output.append(greaterThan) }
                return
            }
            if blockElements.contains(local), !afterBreak {
                output.append(contentsOf: Array("<br>".utf8))
                afterBreak = true
            }
            index = end
        }
    }
}
