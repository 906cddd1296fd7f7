@preconcurrency import CLibXML2

/// libxml2's first well-formedness error as a reason a person can act on: where the mistake
/// starts (libxml2 reports where it noticed it, often a few characters on) and what to write
/// instead, in the words of the markup (`</speak> does not match <emphasis> opened at line 1,
/// column 14`) rather than the parser's (`Opening and ending tag mismatch`). An error not
/// listed here is reported with libxml2's own message at the place libxml2 gives.
enum SSMLXMLErrors {
    static func explain(_ error: SSMLReader.XMLError, in text: SSMLText,
                        open: [(name: String, start: Int)]) -> SSMLRules.Failure {
        let at = min(error.offset, text.count)
        func failure(_ offset: Int, _ reason: String) -> SSMLRules.Failure { .init(offset: offset, reason: reason) }
        // What libxml2 was reading: markup from its "<", or text (nil) up to `at`.
        let markup = text.firstIndex(of: .lessThan, in: error.after..<min(at + 1, text.count))
        let tagName = markup.map { text.name(at: $0 + 1) } ?? ""
        /// The attribute libxml2 was reading in the start tag at `markup`.
        var attribute: SSMLTag.Attribute? {
            markup.flatMap { SSMLTag(text, at: $0, end: at).attributes.last }
        }

        // A character XML does not allow stops libxml2 in whatever it was reading.
        if let bad = firstNonXMLCharacter(text), bad <= at {
            return failure(bad, "character U+\(String(text.scalar(at: bad)!.value, radix: 16, uppercase: true)) is not allowed in XML")
        }
        let code = xmlParserErrors(UInt32(error.code))
        if let markup, inStartTag(markup, text), markup + 1 < at,
           [XML_ERR_SPACE_REQUIRED, XML_ERR_NAME_REQUIRED, XML_ERR_ATTRIBUTE_WITHOUT_VALUE, XML_ERR_EQUAL_REQUIRED].contains(code) {
            // Something that cannot go there in a start tag, or the end of the text.
            guard let found = text.scalar(at: at) else { return failure(markup, "the tag <\(tagName)> is never closed with \">\"") }
            if code == XML_ERR_SPACE_REQUIRED {
                return failure(at, "unexpected \"\(Character(found))\" in the tag <\(tagName)>: put a space between attributes")
            }
            if let attribute, found.properties.isWhitespace || "=/>".unicodeScalars.contains(found) {
                return failure(attribute.nameStart, "attribute \"\(attribute.name)\" has no value (write \(attribute.name)=\"...\")")
            }
            return failure(at, "unexpected \"\(Character(found))\" in the tag <\(tagName)> (not a character an XML name can hold)")
        }
        switch code {
        case XML_ERR_DOCUMENT_EMPTY, XML_ERR_DOCUMENT_START:
            if let first = text.firstNonSpace(from: error.after), text.bytes[first] != .lessThan {
                return failure(first, "text before <speak>: SSML must start with <speak>")
            }
            return failure(text.count, "no <speak> element: SSML must be <speak>...</speak>")
        case XML_ERR_DOCUMENT_END:
            let extra = text.firstNonSpace(from: at) ?? at
            if text.starts(with: "</", at: extra) {
                return failure(extra, "</\(text.name(at: extra + 2))> closes nothing (after </speak>)")
            }
            if text.starts(with: "<", at: extra) {
                return failure(extra, "an element after </speak>: SSML has exactly one <speak> element")
            }
            return failure(extra, "text after </speak>")
        case XML_ERR_TAG_NAME_MISMATCH:
            guard let element = open.last, let markup else { break }
            let (line, column) = text.position(of: element.start)
            return failure(markup, "</\(text.name(at: markup + 2))> does not match <\(element.name)> opened at line \(line), column \(column)")
        case XML_ERR_TAG_NOT_FINISHED:
            guard let element = open.last else { break }
            return failure(element.start, "<\(element.name)> is never closed (add </\(element.name)>)")
        case XML_ERR_GT_REQUIRED, XML_ERR_LTSLASH_REQUIRED:
            guard let markup else { break }
            if text.starts(with: "</", at: markup) {
                return failure(markup, "the closing tag </\(text.name(at: markup + 2))> must end with \">\"")
            }
            return failure(markup, "the tag <\(tagName)> is never closed with \">\"")
        case XML_ERR_ATTRIBUTE_NOT_STARTED:
            guard let attribute else { break }
            return failure(at, "the value of \"\(attribute.name)\" must be in quotes (\(attribute.name)=\"...\")")
        case XML_ERR_ATTRIBUTE_REDEFINED:
            guard let markup else { break }
            var seen: Set<String> = []
            for attribute in SSMLTag(text, at: markup, end: at).attributes where !seen.insert(attribute.name).inserted {
                return failure(attribute.nameStart, "attribute \"\(attribute.name)\" is given twice")
            }
        case XML_ERR_LT_IN_ATTRIBUTE:
            guard let attribute, let quote = attribute.quote else { break }
            if text.firstIndex(of: .greaterThan, in: attribute.value) != nil {
                // The value ran on past the tag's end: its closing quote is missing.
                return failure(attribute.value.lowerBound - 1,
                               "the value of \"\(attribute.name)\" is never closed: add its closing \(Character(Unicode.Scalar(quote)))")
            }
            return failure(at, "\"<\" is not allowed in an attribute value; leave it out (espeak-ng would not decode &lt; there)")
        case XML_ERR_ATTRIBUTE_NOT_FINISHED:
            guard let attribute, let quote = attribute.quote else { break }
            return failure(attribute.value.lowerBound - 1, "the value of \"\(attribute.name)\" is never closed with \(Character(Unicode.Scalar(quote)))")
        case XML_ERR_NAME_REQUIRED, XML_ERR_ENTITYREF_NO_NAME, XML_ERR_ENTITYREF_SEMICOL_MISSING, XML_ERR_UNDECLARED_ENTITY,
             XML_ERR_INVALID_HEX_CHARREF, XML_ERR_INVALID_DEC_CHARREF, XML_ERR_INVALID_CHARREF, XML_ERR_INVALID_CHAR:
            // A reference ("&...;") or a "<" that starts no tag.
            if let markup, markup + 1 == at || markup + 1 == text.count, code == XML_ERR_NAME_REQUIRED {
                guard let next = text.scalar(at: markup + 1), !next.properties.isWhitespace else {
                    return failure(markup, "\"<\" must start a tag; write &lt; for a literal \"<\"")
                }
                if next == "!" {
                    return failure(markup, "declarations such as <!DOCTYPE> are not allowed (only comments start with \"<!\")")
                }
                return failure(markup, "\"<\(Character(next))\" starts no tag: an XML name cannot start with \"\(Character(next))\" "
                    + "(write &lt; for a literal \"<\")")
            }
            // libxml2 stops past the "&" (after the name, at the ";" or at what is no name).
            guard let ampersand = text.lastIndex(of: .ampersand, in: error.after..<at)
                ?? text.lastIndex(of: .ampersand, in: error.after..<min(at + 1, text.count)) else { break }
            if let markup, markup < ampersand {
                return failure(ampersand, "\"&\" in an attribute value: espeak-ng does not decode entities there; write the character itself")
            }
            let end = text.firstIndex(of: UInt8(ascii: ";"), in: ampersand..<min(at + 1, text.count))
            let reference = end.map { text.string(ampersand..<($0 + 1)) }
            switch code {
            case XML_ERR_UNDECLARED_ENTITY:
                return failure(ampersand, "unknown entity \(reference ?? "&") (XML has &amp; &lt; &gt; &quot; &apos;; write others as &#160;)")
            case XML_ERR_INVALID_HEX_CHARREF, XML_ERR_INVALID_DEC_CHARREF, XML_ERR_INVALID_CHARREF, XML_ERR_INVALID_CHAR:
                guard let reference else {
                    return failure(ampersand, "the character reference \(text.string(ampersand..<at)) must end with \";\"")
                }
                return failure(ampersand, "\(reference) is not a valid character reference")
            case XML_ERR_ENTITYREF_SEMICOL_MISSING:
                return failure(ampersand, "\(text.string(ampersand..<at)) must end with \";\" (write &amp; for a literal \"&\")")
            default:
                return failure(ampersand, "\"&\" must start an entity like &amp; (write &amp; for a literal \"&\")")
            }
        case XML_ERR_MISPLACED_CDATA_END:
            let sequence = text.find("]]>", in: min(error.after, at)..<text.count) ?? at
            return failure(sequence, "\"]]>\" is not allowed in text; write ]]&gt;")
        case XML_ERR_HYPHEN_IN_COMMENT:
            guard let markup, let dashes = text.find("--", in: (markup + 4)..<text.count) else { break }
            return failure(dashes, "\"--\" is not allowed inside a comment")
        case XML_ERR_COMMENT_NOT_FINISHED:
            guard let markup else { break }
            return failure(markup, "the comment is never closed with \"-->\"")
        case XML_ERR_RESERVED_XML_NAME where markup != nil:
            let declaration = tagName == "?xml"
            return failure(markup!, declaration ? "the XML declaration must come first" : "processing instructions are not supported by espeak-ng")
        default:
            break
        }
        if let markup, tagName == "?xml" {
            return failure(markup, "the XML declaration is not valid (\(error.message)); write <?xml version=\"1.0\"?> or leave it out")
        }
        return failure(at, "not well-formed XML: \(error.message)")
    }

    /// Whether the markup at `markup` is a start tag (not a comment, declaration or end tag).
    private static func inStartTag(_ markup: Int, _ text: SSMLText) -> Bool {
        guard let next = text.scalar(at: markup + 1) else { return false }
        return !"!?/".unicodeScalars.contains(next)
    }

    /// The first character outside XML 1.0's `Char` production.
    static func firstNonXMLCharacter(_ text: SSMLText) -> Int? {
        var offset = 0
        for scalar in String(decoding: text.bytes, as: UTF8.self).unicodeScalars {
            switch scalar.value {
            case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: break
            default: return offset
            }
            offset += UTF8.width(scalar)
        }
        return nil
    }
}
