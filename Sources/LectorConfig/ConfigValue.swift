import TOMLKit

/// A value TOMLKit read, before it is checked against what its key expects.
indirect enum ConfigValue: Equatable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    /// Each element with the line it is on (arrays may span lines).
    case array([Element])

    struct Element: Equatable {
        var value: ConfigValue
        var line: Int
    }

    /// TOMLKit's value for a key or array element, `written` saying where and how it was written.
    /// Throws for the TOML forms Lector does not take: inline tables, dates and times,
    /// multi-line strings, hexadecimal, octal and binary numbers.
    init(_ node: TOMLValueConvertible, written: SourceMap.Value, file: String) throws {
        let text = written.text
        func fail(_ reason: String) -> ConfigError { ConfigError(file: file, line: written.line, reason: reason) }
        switch node.type {
        case .string:
            if text.hasPrefix("\"\"\"") || text.hasPrefix("'''") { throw fail("multi-line strings (\(text.prefix(3))) are not supported") }
            // TOMLKit returns strings as C strings: an escaped NUL would silently cut the text short.
            if Self.escapesNUL(text) { throw fail("control character U+0000 in a string") }
            self = .string(node.string ?? "")
        case .int:
            let digits = text.drop { $0 == "+" || $0 == "-" }
            if digits.hasPrefix("0x") || digits.hasPrefix("0o") || digits.hasPrefix("0b") {
                throw fail("invalid number \(text) (only decimal numbers are supported)")
            }
            self = .integer(Int64(node.int ?? 0))
        case .double:
            self = .float(node.double ?? .nan)
        case .bool:
            self = .boolean(node.bool ?? false)
        case .array:
            self = .array(try (node.array ?? TOMLArray()).enumerated().map { offset, element in
                let place = offset < written.elements.count ? written.elements[offset] : SourceMap.Value(line: written.line, text: "")
                return Element(value: try ConfigValue(element, written: place, file: file), line: place.line)
            })
        case .table:
            throw fail("inline tables ({...}) are not supported")
        case .date, .time, .dateTime:
            throw fail("invalid value \(text) (dates and times are not supported; strings need quotes, e.g. \"\(text)\")")
        }
    }

    /// Whether a basic string as written holds \u0000 or \U00000000.
    private static func escapesNUL(_ text: String) -> Bool {
        guard text.hasPrefix("\"") else { return false }
        var rest = Substring(text)
        while let slash = rest.firstIndex(of: "\\") {
            let escape = rest[rest.index(after: slash)...]
            if escape.hasPrefix("u0000") || escape.hasPrefix("U00000000") { return true }
            rest = escape.dropFirst()
        }
        return false
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
