import Foundation

/// Just enough of GVariant's text format (what `gdbus monitor` prints) to split a signal's
/// argument tuple and turn simple values into plain strings a test can compare.
public enum GVariantText {
    private static let typeKeywords: Set<String> = [
        "byte", "int16", "uint16", "int32", "uint32", "int64", "uint64", "handle",
        "double", "boolean", "string", "objectpath", "signature",
    ]

    /// "(uint64 1, 'a, b', [1, 2])" → ["uint64 1", "'a, b'", "[1, 2]"]; "('x',)" → ["'x'"].
    static func tupleElements(_ tuple: String) -> [String] {
        var text = Substring(tuple.trimmingCharacters(in: .whitespaces))
        guard text.hasPrefix("("), text.hasSuffix(")") else { return [tuple] }
        text = text.dropFirst().dropLast()
        return splitTopLevel(String(text))
    }

    /// Splits GVariant text at commas outside quotes and brackets: "'a, b', [1, 2]" → ["'a, b'", "[1, 2]"].
    public static func splitTopLevel(_ text: String) -> [String] {
        var elements: [String] = []
        var current = ""
        var depth = 0
        var quote: Character?
        var escaped = false
        for character in text {
            if let open = quote {
                current.append(character)
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == open { quote = nil }
                continue
            }
            switch character {
            case "'", "\"": quote = character; current.append(character)
            case "(", "[", "{", "<": depth += 1; current.append(character)
            case ")", "]", "}", ">": depth -= 1; current.append(character)
            case "," where depth == 0:
                elements.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            default: current.append(character)
            }
        }
        let last = current.trimmingCharacters(in: .whitespaces)
        if !last.isEmpty { elements.append(last) }
        return elements
    }


    /// "uint64 1" → "1", "'done'" → "done", "objectpath '/a'" → "/a", "byte 0x05" → "5", "@as []" → "[]".
    static func plainValue(_ element: String) -> String {
        var value = element
        if value.hasPrefix("@"), let space = value.firstIndex(of: " ") {
            value = String(value[value.index(after: space)...])
        }
        if let space = value.firstIndex(of: " "), typeKeywords.contains(String(value[..<space])) {
            let keyword = String(value[..<space])
            value = String(value[value.index(after: space)...])
            if keyword == "byte", value.hasPrefix("0x"), let byte = UInt8(value.dropFirst(2), radix: 16) {
                return String(byte)
            }
        }
        return unquoted(value) ?? value
    }

    /// The content of a single- or double-quoted GVariant string with escapes resolved, or nil if `text` is not one.
    public static func unquoted(_ text: String) -> String? {
        guard text.count >= 2, let first = text.first, first == "'" || first == "\"", text.last == first else { return nil }
        var result = ""
        var characters = text.dropFirst().dropLast().makeIterator()
        while let character = characters.next() {
            guard character == "\\", let next = characters.next() else {
                result.append(character)
                continue
            }
            switch next {
            case "n": result.append("\n")
            case "t": result.append("\t")
            case "r": result.append("\r")
            case "a": result.append("\u{07}")
            case "b": result.append("\u{08}")
            case "f": result.append("\u{0C}")
            case "v": result.append("\u{0B}")
            case "u", "U":
                var hex = ""
                for _ in 0..<(next == "u" ? 4 : 8) { if let digit = characters.next() { hex.append(digit) } }
                if let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) { result.unicodeScalars.append(scalar) }
            default: result.append(next)
            }
        }
        return result
    }
}
