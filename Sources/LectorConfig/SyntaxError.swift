import TOMLKit

extension ConfigError {
    /// toml++'s "Error while parsing <what>: <detail>" at its line: for the usual mistakes (a word
    /// without quotes, a bad number, an unterminated string or array, text after a value) a
    /// message that says what to change, else toml++'s own detail made readable.
    init(syntax error: TOMLParseError, text: String, file: String) {
        var what = "", detail = error.description
        if detail.hasPrefix("Error while parsing "), let colon = detail.range(of: ": ") {
            what = String(detail[detail.index(detail.startIndex, offsetBy: 20)..<colon.lowerBound])
            detail = String(detail[colon.upperBound...])
        }
        let line = max(1, error.source.begin.line)
        // Scalars, not Characters: "\r\n" is one Character.
        let lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        let row = line <= lines.count ? Array(lines[line - 1]) : []
        let column = min(max(0, error.source.begin.column - 1), row.count)
        // The scalar toml++ stopped at (nil at a line end), and the word around it.
        let at = column < row.count && row[column] != "\r" ? row[column] : nil
        let delimiters = " \t=,[]{}#\r\"'".unicodeScalars
        var start = column, end = column
        while start > 0, !delimiters.contains(row[start - 1]) { start -= 1 }
        while end < row.count, !delimiters.contains(row[end]) { end += 1 }
        let word = String(String.UnicodeScalarView(row[start..<end]))
        let found = at.map(Self.describe) ?? "the end of the line"
        // The key a key = value line starts with, and the [header] on the line.
        let key = String(String.UnicodeScalarView(row.drop { $0 == " " || $0 == "\t" }.prefix {
            switch $0 { case "A"..."Z", "a"..."z", "0"..."9", "_", "-": return true; default: return false }
        }))
        let header = String(String.UnicodeScalarView(row[..<column])).trimmingSpaces
        let previous = row[..<column].last { $0 != " " && $0 != "\t" }

        let reason: String
        if detail.contains("after '\\r'") {
            reason = "a carriage return must be followed by a line feed"
        } else if what.hasSuffix("string") && (at == nil || detail.contains("end-of-file")) {
            reason = "unterminated string (a closing \(what == "literal string" ? "'" : "\"") is missing)"
        } else if what.hasSuffix("string") || what == "comment", let at, at.value < 0x20 || at.value == 0x7F {
            reason = "control character \(Self.describe(at)) in a \(what == "comment" ? "comment" : "string")"
                + (what == "string" ? "; write it as an escape" : "")
        } else if detail.hasPrefix("unknown escape sequence") {
            let escape = detail.drop { $0 != "'" }.dropFirst().prefix { $0 != "'" }
            reason = "invalid escape \"\(escape)\" in a string (use \\\\ for a backslash, or a '...' literal string)"
        } else if what == "unicode scalar sequence", let slash = row[..<column].lastIndex(of: "\\"), slash + 1 < row.count {
            let digits = row[slash + 1] == "u" ? 4 : 8
            let escape = String(String.UnicodeScalarView(row[slash..<min(row.count, slash + 2 + digits)]))
            reason = detail.hasPrefix("expected hex digit") ? "\\\(row[slash + 1]) must be followed by \(digits) hexadecimal digits"
                : "\(escape) is not a Unicode scalar value"
        } else if detail.hasPrefix("multi-line strings are prohibited in keys") {
            reason = "a key cannot be a multi-line string"
        } else if what == "boolean" || detail == "could not determine value type" {
            let date = word.contains(":") || (word.count >= 5 && word.prefix(4).allSatisfy(\.isNumber) && word.dropFirst(4).first == "-")
            reason = "invalid value \(word) (\(date ? "dates and times are not supported; " : "")strings need quotes, e.g. \"\(word)\")"
        } else if what.hasSuffix("integer") || what == "floating-point" {
            if detail.contains("64 bits") || detail.contains("could not be interpreted") {
                reason = "\(what.hasSuffix("integer") ? "integer" : "number") \(word) is too large"
            } else {
                reason = "invalid number \(word)" + (word.hasPrefix(".") ? " (write 0\(word))"
                    : detail.contains("leading zero") ? " (leading zeros are not allowed)"
                    : detail.contains("end-of-file") || detail.contains("saw") ? "" : " (\(detail))")
            }
        } else if detail.hasPrefix("expected a comment or whitespace") {
            reason = "unexpected \(found) after \(what == "table header" ? header : "the value"); one key = value per line, comments start with #"
        } else if detail.hasPrefix("expected '='") || (what == "key" && detail.hasPrefix("expected space or tab")) {
            reason = at == nil ? "expected \"=\" and a value after the key \(key)" : "expected \"=\" after the key \(key), found \(found)"
        } else if what == "key-value pair" && (detail.hasPrefix("expected value") || detail.contains("end-of-file")) {
            reason = at == nil || at == "#" ? "missing value after \(key) =" : "unexpected \(found); expected a value"
        } else if what == "root table" {
            reason = at == "=" ? "missing key before \"=\"" : "unexpected \(found); expected a key (letters, digits, _ and -, or a quoted key)"
        } else if what == "array" && detail.contains("end-of-file") {
            reason = "unterminated array (a closing ] is missing)"
        } else if what == "array" && detail.hasPrefix("expected comma") {
            reason = "expected \",\" or \"]\" in the array, found \(found)"
        } else if what == "array" && detail.hasSuffix("saw comma") {
            reason = previous == "[" ? "unexpected \",\" at the start of an array" : "two commas in a row in an array"
        } else if detail.contains("blank bare keys") {
            reason = "expected a table name between \"[\" and \"]\""
        } else if what == "table header" && (detail.contains("end-of-file") || detail.hasPrefix("expected ']'")) {
            let name = header.dropFirst().trimmingSpaces
            reason = "expected \"]\" after [\(name)" + (at.map { ", found \(Self.describe($0))" } ?? "")
        } else {
            // "expected hex digit, saw '\"'" -> "expected hex digit, found '\"' (in a unicode scalar sequence)"
            var readable = detail.replacingEvery("saw ", with: "found ").replacingEvery("encountered end-of-file", with: "the file ends")
            if let quote = readable.range(of: "found '\\u"), let close = readable[quote.upperBound...].firstIndex(of: "'") {
                readable.replaceSubrange(quote.lowerBound...close, with: "found U+" + readable[quote.upperBound..<close])
            }
            reason = what.isEmpty ? readable : "\(readable) (in \("aeiou".contains(what.first ?? "x") ? "an" : "a") \(what))"
        }
        self.init(file: file, line: line, reason: reason)
    }

    /// "x" or U+0007 (for control characters and spaces other than the plain space).
    private static func describe(_ scalar: Unicode.Scalar) -> String {
        if scalar.value < 0x20 || scalar.value == 0x7F || (scalar.properties.isWhitespace && scalar != " ") || scalar == "\u{FEFF}" {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        return scalar == "\"" ? "'\"'" : "\"\(Character(scalar))\""
    }
}

private extension StringProtocol {
    var trimmingSpaces: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}

private extension String {
    func replacingEvery(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
