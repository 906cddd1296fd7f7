/// A value as written in the file, before it is checked against what its key expects.
indirect enum TOMLValue: Equatable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    /// Each element with the line it is on (arrays may span lines).
    case array([Element])

    struct Element: Equatable {
        var value: TOMLValue
        var line: Int
    }

    /// "a string", "an integer", ... for error messages.
    var kind: String {
        switch self {
        case .string: return "a string"
        case .integer: return "an integer"
        case .float: return "a float"
        case .boolean: return "a boolean"
        case .array: return "an array"
        }
    }

    /// As it would be written in TOML (for error messages).
    var written: String {
        switch self {
        case .string(let text): return quoted(text)
        case .integer(let value): return String(value)
        case .float(let value): return value.isNaN ? "nan" : value.isInfinite ? (value < 0 ? "-inf" : "inf") : String(value)
        case .boolean(let value): return value ? "true" : "false"
        case .array(let elements): return "[" + elements.map(\.value.written).joined(separator: ", ") + "]"
        }
    }
}

/// `"text"` with quotes, backslashes and control characters escaped as a basic TOML string.
func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\t": result += "\\t"
        case "\r": result += "\\r"
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
    }
    return result + "\""
}

/// The subset of TOML 1.0 a config file needs: `[table]` headers, `key = value` with bare or quoted
/// keys, basic and literal strings, decimal integers and floats, booleans and arrays (which may
/// span lines and hold comments), comments and blank lines, LF or CRLF line ends, a leading BOM.
/// What it does not support (dotted keys, nested tables, arrays of tables, inline tables,
/// multi-line strings, dates) is refused by name rather than misread.
struct TOMLParser {
    enum Event {
        case table(String, line: Int)
        case keyValue(String, TOMLValue, line: Int)
    }

    private let scalars: [Unicode.Scalar]
    private let file: String
    private var index = 0
    private var line = 1

    init(_ text: String, file: String) {
        scalars = Array(text.unicodeScalars)
        self.file = file
    }

    mutating func parse(_ handle: (Event) throws -> Void) throws {
        if scalars.first == "\u{FEFF}" { index = 1 }
        while true {
            skipSpaces()
            guard let scalar = peek() else { return }
            switch scalar {
            case "#", "\n", "\r":
                try endOfLine(after: "")
            case "[":
                let start = line
                let name = try tableHeader()
                try endOfLine(after: "[\(displayKey(name))]")
                try handle(.table(name, line: start))
            default:
                let start = line
                let key = try self.key()
                skipSpaces()
                if peek() == "." {
                    throw error("dotted keys (\(displayKey(key)).…) are not supported; write a [section] line, then plain keys")
                }
                guard peek() == "=" else {
                    if let next = peek(), !isLineEnd(next), next != "#" {
                        throw error("expected \"=\" after the key \(displayKey(key)), found \(describe(next))")
                    }
                    throw error("expected \"=\" and a value after the key \(displayKey(key))")
                }
                index += 1
                skipSpaces()
                let value = try self.value(for: key)
                try endOfLine(after: "the value")
                try handle(.keyValue(key, value, line: start))
            }
        }
    }

    // MARK: - Lines, spaces, comments

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private func isLineEnd(_ scalar: Unicode.Scalar) -> Bool { scalar == "\n" || scalar == "\r" }

    private mutating func skipSpaces() {
        while let scalar = peek(), scalar == " " || scalar == "\t" { index += 1 }
    }

    /// After a header or a value: spaces, an optional comment, then a line end or the end of the file.
    private mutating func endOfLine(after what: String) throws {
        skipSpaces()
        if peek() == "#" { try skipComment() }
        guard let scalar = peek() else { return }
        guard isLineEnd(scalar) else {
            throw error("unexpected \(describe(scalar)) after \(what); one key = value per line, comments start with #")
        }
        try newline()
    }

    /// Consumes "\n" or "\r\n"; a lone "\r" is an error (TOML allows no bare carriage return).
    private mutating func newline() throws {
        if peek() == "\r" {
            guard peek(1) == "\n" else { throw error("a carriage return must be followed by a line feed") }
            index += 1
        }
        index += 1
        line += 1
    }

    private mutating func skipComment() throws {
        while let scalar = peek(), scalar != "\n" {
            if scalar == "\r" {
                guard peek(1) == "\n" else { throw error("a carriage return must be followed by a line feed") }
                return
            }
            if isControl(scalar) { throw error("control character \(describe(scalar)) in a comment") }
            index += 1
        }
    }

    /// Inside arrays: spaces, comments and line ends between elements.
    private mutating func skipSpacesCommentsAndNewlines() throws {
        while true {
            skipSpaces()
            guard let scalar = peek() else { return }
            if scalar == "#" {
                try skipComment()
            } else if isLineEnd(scalar) {
                try newline()
            } else {
                return
            }
        }
    }

    private func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F
    }

    // MARK: - Keys and headers

    private mutating func tableHeader() throws -> String {
        index += 1 // [
        if peek() == "[" { throw error("arrays of tables ([[...]]) are not supported") }
        skipSpaces()
        guard let first = peek(), !isLineEnd(first) else { throw error("expected a table name after \"[\"") }
        let name = try key()
        skipSpaces()
        if peek() == "." { throw error("nested tables such as [\(name).…] are not supported") }
        guard peek() == "]" else {
            if let next = peek(), !isLineEnd(next) { throw error("expected \"]\" after [\(name), found \(describe(next))") }
            throw error("expected \"]\" after [\(name)")
        }
        index += 1
        return name
    }

    /// A bare key (A-Z a-z 0-9 _ -) or a quoted one ("..." or '...').
    private mutating func key() throws -> String {
        guard let scalar = peek() else { throw error("expected a key") }
        if scalar == "\"" || scalar == "'" {
            if peek(1) == scalar, peek(2) == scalar { throw error("a key cannot be a multi-line string") }
            return scalar == "\"" ? try basicString() : try literalString()
        }
        let start = index
        while let scalar = peek(), isBareKeyScalar(scalar) { index += 1 }
        guard index > start else {
            if scalar == "=" { throw error("missing key before \"=\"") }
            throw error("unexpected \(describe(scalar)); expected a key (letters, digits, _ and -, or a quoted key)")
        }
        return String(String.UnicodeScalarView(scalars[start..<index]))
    }

    private func isBareKeyScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": return true
        default: return false
        }
    }

    // MARK: - Values

    private mutating func value(for key: String) throws -> TOMLValue {
        guard let scalar = peek(), !isLineEnd(scalar), scalar != "#" else {
            throw error("missing value after \(displayKey(key)) =")
        }
        return try value()
    }

    private mutating func value() throws -> TOMLValue {
        guard let scalar = peek() else { throw error("missing value") }
        switch scalar {
        case "\"", "'":
            if peek(1) == scalar, peek(2) == scalar {
                throw error("multi-line strings (\(scalar)\(scalar)\(scalar)) are not supported")
            }
            return .string(scalar == "\"" ? try basicString() : try literalString())
        case "[":
            return try array()
        case "{":
            throw error("inline tables ({...}) are not supported")
        default:
            return try bareValue()
        }
    }

    private mutating func array() throws -> TOMLValue {
        let opened = line
        index += 1 // [
        var elements: [TOMLValue.Element] = []
        while true {
            try skipSpacesCommentsAndNewlines()
            guard let scalar = peek() else { throw error("unterminated array (opened at line \(opened))") }
            if scalar == "]" {
                index += 1
                return .array(elements)
            }
            if scalar == "," {
                throw error(elements.isEmpty ? "unexpected \",\" at the start of an array" : "two commas in a row in an array")
            }
            let elementLine = line
            elements.append(.init(value: try value(), line: elementLine))
            try skipSpacesCommentsAndNewlines()
            guard let next = peek() else { throw error("unterminated array (opened at line \(opened))") }
            if next == "," {
                index += 1
            } else if next != "]" {
                throw error("expected \",\" or \"]\" in the array, found \(describe(next))")
            }
        }
    }

    /// `"..."` with TOML's escapes.
    private mutating func basicString() throws -> String {
        index += 1 // "
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = peek(), !isLineEnd(scalar) else { throw error("unterminated string (a closing \" is missing)") }
            index += 1
            switch scalar {
            case "\"":
                return String(result)
            case "\\":
                result.append(try escape())
            default:
                if isControl(scalar) { throw error("control character \(describe(scalar)) in a string; write it as an escape") }
                result.append(scalar)
            }
        }
    }

    private mutating func escape() throws -> Unicode.Scalar {
        guard let scalar = peek(), !isLineEnd(scalar) else { throw error("unterminated string (a closing \" is missing)") }
        index += 1
        switch scalar {
        case "b": return "\u{08}"
        case "t": return "\t"
        case "n": return "\n"
        case "f": return "\u{0C}"
        case "r": return "\r"
        case "\"": return "\""
        case "\\": return "\\"
        case "u", "U":
            let count = scalar == "u" ? 4 : 8
            var digits = ""
            for _ in 0..<count {
                guard let digit = peek(), digit.properties.isASCIIHexDigit else {
                    throw error("\\\(scalar) must be followed by \(count) hexadecimal digits")
                }
                digits.unicodeScalars.append(digit)
                index += 1
            }
            guard let value = UInt32(digits, radix: 16), let result = Unicode.Scalar(value) else {
                throw error("\\\(scalar)\(digits) is not a Unicode scalar value")
            }
            return result
        default:
            throw error("invalid escape \"\\\(scalar)\" in a string (use \\\\ for a backslash, or a '...' literal string)")
        }
    }

    /// `'...'`: no escapes.
    private mutating func literalString() throws -> String {
        index += 1 // '
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = peek(), !isLineEnd(scalar) else { throw error("unterminated string (a closing ' is missing)") }
            index += 1
            if scalar == "'" { return String(result) }
            if isControl(scalar) { throw error("control character \(describe(scalar)) in a string") }
            result.append(scalar)
        }
    }

    /// true, false, an integer or a float: up to the next space, comma, bracket, comment or line end.
    private mutating func bareValue() throws -> TOMLValue {
        let start = index
        while let scalar = peek(), !" \t,]#\r\n".unicodeScalars.contains(scalar) { index += 1 }
        let token = String(String.UnicodeScalarView(scalars[start..<index]))
        switch token {
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        case "inf", "+inf": return .float(.infinity)
        case "-inf": return .float(-.infinity)
        case "nan", "+nan", "-nan": return .float(.nan)
        default: break
        }
        if token.isEmpty, let scalar = peek() { throw error("unexpected \(describe(scalar)); expected a value") }
        let looksLikeDate = token.count >= 5 && token.prefix(4).allSatisfy(\.isNumber) && token.dropFirst(4).first == "-"
        if token.contains(":") || looksLikeDate {
            throw error("invalid value \(token) (dates and times are not supported; strings need quotes, e.g. \"\(token)\")")
        }
        if token.hasPrefix(".") && token.dropFirst().first?.isNumber == true {
            throw error("invalid number \(token) (write 0\(token))")
        }
        if let number = try number(token) { return number }
        throw error("invalid value \(token) (strings need quotes, e.g. \"\(token)\")")
    }

    /// A decimal integer or float in TOML's grammar (underscores between digits, no leading zeros),
    /// nil if the token is not shaped like a number at all.
    private func number(_ token: String) throws -> TOMLValue? {
        var rest = Substring(token)
        var sign = ""
        if let first = rest.first, first == "+" || first == "-" {
            sign = first == "-" ? "-" : ""
            rest = rest.dropFirst()
        }
        guard let first = rest.first, first.isASCII, first.isNumber else { return nil }
        if rest.hasPrefix("0x") || rest.hasPrefix("0o") || rest.hasPrefix("0b") {
            throw error("invalid number \(token) (only decimal numbers are supported)")
        }

        // digits ( "." digits )? ( [eE] [+-]? digits )?
        func digits(_ text: inout Substring) -> String? {
            var result = ""
            var previousWasDigit = false
            while let c = text.first {
                if c.isASCII, c.isNumber {
                    result.append(c)
                    previousWasDigit = true
                } else if c == "_", previousWasDigit, text.dropFirst().first.map({ $0.isASCII && $0.isNumber }) == true {
                    previousWasDigit = false
                } else {
                    break
                }
                text = text.dropFirst()
            }
            return result.isEmpty ? nil : result
        }
        let invalid = error("invalid number \(token)")
        guard let integral = digits(&rest) else { throw invalid }
        if integral.count > 1, integral.hasPrefix("0") {
            throw error("invalid number \(token) (leading zeros are not allowed)")
        }
        var fraction: String?
        var exponent: String?
        if rest.first == "." {
            rest = rest.dropFirst()
            guard let part = digits(&rest) else { throw invalid }
            fraction = part
        }
        if let e = rest.first, e == "e" || e == "E" {
            rest = rest.dropFirst()
            var exponentSign = ""
            if let s = rest.first, s == "+" || s == "-" {
                exponentSign = s == "-" ? "-" : ""
                rest = rest.dropFirst()
            }
            guard let part = digits(&rest) else { throw invalid }
            exponent = exponentSign + part
        }
        guard rest.isEmpty else { throw invalid }

        if fraction == nil, exponent == nil {
            guard let value = Int64(sign + integral) else { throw error("integer \(token) is too large") }
            return .integer(value)
        }
        var text = sign + integral
        if let fraction { text += "." + fraction }
        if let exponent { text += "e" + exponent }
        guard let value = Double(text), value.isFinite else { throw error("number \(token) is too large") }
        return .float(value)
    }

    // MARK: - Errors

    private func error(_ reason: String) -> ConfigError {
        ConfigError(file: file, line: line, reason: reason)
    }

    private func describe(_ scalar: Unicode.Scalar) -> String {
        if isControl(scalar) || scalar == "\u{FEFF}" || scalar.properties.isWhitespace {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        return scalar == "\"" ? "'\"'" : "\"\(Character(scalar))\""
    }
}

/// A key as the user should see it in a message: bare if it could be written bare, else quoted.
func displayKey(_ key: String) -> String {
    let bare = !key.isEmpty && key.unicodeScalars.allSatisfy {
        switch $0 {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": return true
        default: return false
        }
    }
    return bare ? key : quoted(key)
}
