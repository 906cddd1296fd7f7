/// A small XML well-formedness checker for `SSMLCheck`, strict where espeak-ng's own tag reader
/// is naive: espeak-ng ends a tag or comment at the first ">", reads at most 500 characters of a
/// tag, and knows only a few entities. It reports the first problem with its line and column
/// (1-based, columns in Unicode scalars).
///
/// ```swift
/// var parser = SSMLParser("<speak>a <b>c</speak>")
/// try parser.run()   // throws SSMLParser.Failure(line: 1, column: 16, reason: "</speak> does not match <b> ...")
/// ```
struct SSMLParser {
    struct Failure: Error, Equatable {
        var line: Int
        var column: Int
        var reason: String
    }

    struct Open {
        var name: String
        var at: Int
    }

    /// espeak-ng's `N_XML_BUF`: longer tags are cut and the rest is spoken.
    static let maximumTagLength = 500

    private let text: [Unicode.Scalar]
    private var index = 0
    private var stack: [Open] = []
    private var rootSeen = false
    private var rootClosed = false

    init(_ text: String) {
        self.text = Array(text.unicodeScalars)
    }

    mutating func run() throws(Failure) {
        if text.first == "\u{FEFF}" { index = 1 }
        if starts(with: "<?xml", at: index), index + 5 < text.count, isSpace(text[index + 5]) {
            guard let end = find("?>", from: index) else { throw failure(at: index, "the XML declaration is never closed with \"?>\"") }
            if let bad = firstIndex(of: ">", in: index..<end) {
                throw failure(at: bad, "\">\" inside the XML declaration ends it early for espeak-ng")
            }
            index = end + 2
        }
        while index < text.count {
            switch text[index] {
            case "<": try markup()
            case "&":
                try character(at: index)
                try reference()
            default:
                try character(at: index)
                index += 1
            }
        }
        if let open = stack.last {
            throw failure(at: open.at, "<\(open.name)> is never closed (add </\(open.name)>)")
        }
        if !rootSeen {
            throw failure(at: text.count, "no <speak> element: SSML must be <speak>...</speak>")
        }
    }

    // MARK: markup

    private mutating func markup() throws(Failure) {
        let start = index
        if starts(with: "<!--", at: start) {
            guard let end = find("-->", from: start + 4) else { throw failure(at: start, "the comment is never closed with \"-->\"") }
            if let dashes = find("--", from: start + 4), dashes < end {
                throw failure(at: dashes, "\"--\" is not allowed inside a comment")
            }
            if let bad = firstIndex(of: ">", in: (start + 4)..<end) {
                throw failure(at: bad, "\">\" inside a comment ends it early for espeak-ng (the rest would be spoken)")
            }
            index = end + 3
        } else if starts(with: "<![CDATA[", at: start) {
            throw failure(at: start, "CDATA sections are not supported by espeak-ng; escape the text with &lt; and &amp;")
        } else if starts(with: "<!", at: start) {
            throw failure(at: start, "declarations such as <!DOCTYPE> are not allowed")
        } else if starts(with: "<?", at: start) {
            let declaration = starts(with: "<?xml", at: start) && start + 5 < text.count && isSpace(text[start + 5])
            throw failure(at: start, declaration ? "the XML declaration must come first"
                                                  : "processing instructions are not supported by espeak-ng")
        } else if starts(with: "</", at: start) {
            try endTag()
        } else {
            try startTag()
        }
        // espeak-ng reads the characters between "<" and ">" into a 500-character buffer.
        let length = index - start - 2
        if length > Self.maximumTagLength {
            throw failure(at: start, "the tag is \(length) characters long; espeak-ng reads at most \(Self.maximumTagLength)")
        }
    }

    private mutating func startTag() throws(Failure) {
        let start = index
        index += 1
        guard index < text.count, isNameStart(text[index]) else {
            throw failure(at: start, "\"<\" must start a tag; write &lt; for a literal \"<\"")
        }
        let name = readName()
        if rootClosed { throw failure(at: start, "text after </speak>: SSML has exactly one <speak> element") }
        let inMetadata = stack.contains { $0.name == "metadata" }
        if stack.isEmpty {
            guard name == "speak" else { throw failure(at: start, "the root element must be <speak>, not <\(name)>") }
            rootSeen = true
        } else if !inMetadata {
            if let problem = SSMLVocabulary.problem(element: name) { throw failure(at: start, problem) }
            if name == "speak" { throw failure(at: start, "<speak> can only be the root element") }
        }
        try markContent(at: start)

        var attributes: [String: String] = [:]
        while true {
            let hadSpace = skipSpaces()
            guard index < text.count else { throw failure(at: start, "the tag <\(name)> is never closed with \">\"") }
            if text[index] == ">" { index += 1; stack.append(Open(name: name, at: start)); break }
            if starts(with: "/>", at: index) {
                index += 2
                if stack.isEmpty { rootClosed = true }
                break
            }
            let attributeStart = index
            guard hadSpace, isNameStart(text[index]) else {
                throw failure(at: index, "unexpected \"\(Character(text[index]))\" in the tag <\(name)>")
            }
            let attribute = readName()
            if attributes[attribute] != nil { throw failure(at: attributeStart, "attribute \"\(attribute)\" is given twice") }
            _ = skipSpaces()
            guard index < text.count, text[index] == "=" else {
                throw failure(at: attributeStart, "attribute \"\(attribute)\" has no value (write \(attribute)=\"...\")")
            }
            index += 1
            _ = skipSpaces()
            guard index < text.count, text[index] == "\"" || text[index] == "'" else {
                throw failure(at: index, "the value of \"\(attribute)\" must be in quotes")
            }
            let value = try quoted()
            attributes[attribute] = value
            if !inMetadata, let problem = SSMLVocabulary.problem(element: name, attribute: attribute, value: value) {
                throw failure(at: attributeStart, problem)
            }
        }
        guard !inMetadata else { return }
        if let needed = SSMLVocabulary.required[name], attributes[needed] == nil {
            throw failure(at: start, "<\(name)> needs the \(needed) attribute")
        }
        if name == "tts:style", let problem = SSMLVocabulary.problem(styleField: attributes["field"], mode: attributes["mode"]) {
            throw failure(at: start, problem)
        }
    }

    private mutating func endTag() throws(Failure) {
        let start = index
        index += 2
        guard index < text.count, isNameStart(text[index]) else { throw failure(at: start, "\"</\" must start a closing tag") }
        let name = readName()
        _ = skipSpaces()
        guard index < text.count, text[index] == ">" else {
            throw failure(at: start, "the closing tag </\(name)> must end with \">\"")
        }
        index += 1
        guard let open = stack.last else {
            throw failure(at: start, "</\(name)> closes nothing" + (rootClosed ? " (after </speak>)" : ""))
        }
        guard open.name == name else {
            let (line, column) = position(of: open.at)
            throw failure(at: start, "</\(name)> does not match <\(open.name)> opened at line \(line), column \(column)")
        }
        stack.removeLast()
        if stack.isEmpty { rootClosed = true }
    }

    /// A quoted attribute value (index at the quote).
    private mutating func quoted() throws(Failure) -> String {
        let quote = text[index], valueStart = index
        index += 1
        var value = String.UnicodeScalarView()
        while index < text.count, text[index] != quote {
            switch text[index] {
            case "<": throw failure(at: index, "\"<\" is not allowed in an attribute value; write &lt;")
            case ">": throw failure(at: index, "\">\" in an attribute value ends the tag early for espeak-ng; write &gt;")
            case "&":
                // espeak-ng copies attribute values raw: "&amp;" would be read as five characters.
                throw failure(at: index, "\"&\" in an attribute value: espeak-ng does not decode entities there")
            case "\"" where quote == "'":
                throw failure(at: index, "espeak-ng ends every attribute value at '\"', even inside '...'")
            default:
                guard isXMLCharacter(text[index]) else { throw notXML(at: index) }
                value.append(text[index])
                index += 1
            }
        }
        guard index < text.count else { throw failure(at: valueStart, "the attribute value is never closed with \(Character(quote))") }
        index += 1
        return String(value)
    }

    // MARK: text

    /// `&amp;`, `&#233;`, `&#xE9;`; index at "&", moved past ";".
    private mutating func reference() throws(Failure) {
        let start = index
        guard let end = firstIndex(of: ";", in: (start + 1)..<min(text.count, start + 12)) else {
            throw failure(at: start, "\"&\" must start an entity like &amp; (write &amp; for a literal \"&\")")
        }
        let body = String(String.UnicodeScalarView(text[(start + 1)..<end]))
        index = end + 1
        if body.hasPrefix("#") {
            let hex = body.hasPrefix("#x")
            let digits = body.dropFirst(hex ? 2 : 1)
            guard let code = UInt32(digits, radix: hex ? 16 : 10), let scalar = Unicode.Scalar(code), isXMLCharacter(scalar) else {
                throw failure(at: start, "&\(body); is not a valid character reference")
            }
            return
        }
        guard ["amp", "lt", "gt", "quot", "apos"].contains(body) else {
            throw failure(at: start, "unknown entity &\(body); (XML has &amp; &lt; &gt; &quot; &apos;; write others as &#160;)")
        }
    }

    /// Checks one character of content (not markup) at `at`.
    private mutating func character(at position: Int) throws(Failure) {
        let scalar = text[position]
        guard isXMLCharacter(scalar) else { throw notXML(at: position) }
        if stack.isEmpty, !isSpace(scalar) {
            throw failure(at: position, rootClosed ? "text after </speak>" : "text before <speak>: SSML must start with <speak>")
        }
        if !isSpace(scalar) { try markContent(at: position) }
        if starts(with: "]]>", at: position) { throw failure(at: position, "\"]]>\" is not allowed in text; write ]]&gt;") }
    }

    private func notXML(at position: Int) -> Failure {
        failure(at: position, "character U+\(String(text[position].value, radix: 16, uppercase: true)) is not allowed in XML")
    }

    /// Content inside the innermost element: `<break>` and `<mark>` must stay empty.
    private func markContent(at position: Int) throws(Failure) {
        guard let open = stack.last, SSMLVocabulary.empty.contains(open.name) else { return }
        throw failure(at: position, "<\(open.name)> must be empty (write <\(open.name) .../>)")
    }

    // MARK: scanning

    private mutating func readName() -> String {
        let start = index
        while index < text.count, isNameCharacter(text[index]) { index += 1 }
        return String(String.UnicodeScalarView(text[start..<index]))
    }

    /// Skips XML white space; true if there was any.
    private mutating func skipSpaces() -> Bool {
        let start = index
        while index < text.count, isSpace(text[index]) { index += 1 }
        return index > start
    }

    private func starts(with prefix: String, at position: Int) -> Bool {
        var i = position
        for scalar in prefix.unicodeScalars {
            guard i < text.count, text[i] == scalar else { return false }
            i += 1
        }
        return true
    }

    private func find(_ needle: String, from position: Int) -> Int? {
        guard position <= text.count else { return nil }
        return (position..<text.count).first { starts(with: needle, at: $0) }
    }

    private func firstIndex(of scalar: Unicode.Scalar, in range: Range<Int>) -> Int? {
        range.isEmpty ? nil : range.first { text[$0] == scalar }
    }

    private func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
    }

    private func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar == ":" || scalar.properties.isAlphabetic
    }

    private func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        isNameStart(scalar) || scalar == "-" || scalar == "." || ("0"..."9").contains(scalar)
            || scalar.properties.numericType != nil
    }

    private func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    // MARK: positions

    /// 1-based line and column; "\r\n" and "\r" end a line like "\n".
    func position(of offset: Int) -> (line: Int, column: Int) {
        var line = 1, column = 1, i = 0
        while i < min(offset, text.count) {
            if text[i] == "\n" || (text[i] == "\r" && (i + 1 >= text.count || text[i + 1] != "\n")) {
                line += 1
                column = 1
            } else if text[i] != "\r" {
                column += 1
            }
            i += 1
        }
        return (line, column)
    }

    private func failure(at offset: Int, _ reason: String) -> Failure {
        let (line, column) = position(of: offset)
        return Failure(line: line, column: column, reason: reason)
    }
}
