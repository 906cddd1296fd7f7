import TOMLKit

/// Where each header, key and array element of a config file is.
///
/// TOMLKit parses and validates (toml++ underneath), but its tables carry no source positions and
/// iterate in key order, so the checks take their lines and file order from here. This is no
/// second parser: it does not validate, it only tokenizes, and it is trusted on text toml++
/// accepted (or on the part before toml++'s first error). There strings, comments and brackets are
/// known to be well formed, so skipping strings (with their escapes) and comments as TOML defines
/// them is enough that a "#", "[", "=" or newline inside a string is never taken for structure.
/// On text it cannot follow it stops, keeping what it found so far.
struct SourceMap {
    struct Statement {
        enum Kind {
            /// `[a.b]`, or `[[a]]` with `array` true; the path with its keys decoded.
            case table([String], array: Bool)
            /// `a.b = value`.
            case keyValue([String], Value)
        }

        var kind: Kind
        var line: Int
    }

    /// A value as written: its first line, its text, and for an array its elements.
    struct Value {
        var line: Int
        var text: String
        var elements: [Value] = []
    }

    private(set) var statements: [Statement] = []
    /// The line of a header whose name does not start with a key character: toml++ 3.4 asserts
    /// (aborts) on `[` followed by, say, a newline or "é" instead of reporting an error, so such a
    /// text must not reach it.
    private(set) var headerWithoutName: Int?

    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var line = 1

    private struct Stop: Error {}

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { index = 1 }
        try? scanStatements()
    }

    // MARK: - Statements

    private mutating func scanStatements() throws {
        while true {
            skipSpaces()
            guard let scalar = peek() else { return }
            let start = line
            if scalar == "[" {
                advance()
                let array = peek() == "["
                if array { advance() }
                skipSpaces()
                guard let first = peek(), first == "]" || Self.startsKey(first) else {
                    if peek() != nil { headerWithoutName = start }
                    throw Stop()
                }
                let path = try keyPath()
                for _ in 0..<(array ? 2 : 1) { try expect("]") }
                statements.append(Statement(kind: .table(path, array: array), line: start))
            } else if Self.startsKey(scalar) {
                let path = try keyPath()
                try expect("=")
                skipSpaces()
                statements.append(Statement(kind: .keyValue(path, try value()), line: start))
            } else if scalar != "#" && scalar != "\r" && scalar != "\n" {
                throw Stop()
            }
            try endOfLine()
        }
    }

    /// Spaces, an optional comment, then the line end (or the end of the text).
    private mutating func endOfLine() throws {
        skipSpaces()
        if peek() == "#" { while let scalar = peek(), scalar != "\n" { advance() } }
        if peek() == "\r" { advance() }
        guard let scalar = peek() else { return }
        guard scalar == "\n" else { throw Stop() }
        advance()
    }

    // MARK: - Keys

    private static func isBare(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": return true
        default: return false
        }
    }

    private static func startsKey(_ scalar: Unicode.Scalar) -> Bool { isBare(scalar) || scalar == "\"" || scalar == "'" }

    /// `a`, `"a b"`, `a . 'b'`: the keys decoded.
    private mutating func keyPath() throws -> [String] {
        var path: [String] = []
        repeat {
            if !path.isEmpty { advance() } // "."
            skipSpaces()
            guard let first = peek() else { throw Stop() }
            let start = index
            if first == "\"" || first == "'" {
                try skipString()
                path.append(try Self.decodeQuotedKey(String(String.UnicodeScalarView(scalars[start..<index]))))
            } else {
                while let scalar = peek(), Self.isBare(scalar) { advance() }
                guard index > start else { throw Stop() }
                path.append(String(String.UnicodeScalarView(scalars[start..<index])))
            }
            skipSpaces()
        } while peek() == "."
        return path
    }

    /// A quoted key's text, by TOMLKit (so escapes decode exactly as in the table).
    private static func decodeQuotedKey(_ written: String) throws -> String {
        if written.hasPrefix("'") || !written.contains("\\") { return String(written.dropFirst().dropLast()) }
        guard let key = (try? TOMLTable(string: written + " = 0"))?.keys.first else { throw Stop() }
        return key
    }

    // MARK: - Values

    private mutating func value() throws -> Value {
        let start = index
        var result = Value(line: line, text: "")
        switch peek() {
        case "\""?, "'"?:
            try skipString()
        case "["?:
            advance()
            while true {
                try skipBlanks()
                if peek() == "]" { break }
                result.elements.append(try value())
                try skipBlanks()
                if peek() == "," { advance() } else if peek() != "]" { throw Stop() }
            }
            advance()
        case "{"?:
            advance()
            while true {
                try skipBlanks()
                if peek() == "}" { break }
                if peek() == "," { advance(); continue }
                _ = try keyPath()
                try expect("=")
                skipSpaces()
                _ = try value()
            }
            advance()
        case nil:
            throw Stop()
        default: // numbers, booleans, dates and times (which may hold one space)
            while let scalar = peek(), !",]}#\r\n".unicodeScalars.contains(scalar) { advance() }
            while index > start, scalars[index - 1] == " " || scalars[index - 1] == "\t" { index -= 1 }
            guard index > start else { throw Stop() }
        }
        result.text = String(String.UnicodeScalarView(scalars[start..<index]))
        return result
    }

    /// A basic, literal or multi-line string, escapes included.
    private mutating func skipString() throws {
        guard let quote = peek() else { throw Stop() }
        let multiLine = peek(1) == quote && peek(2) == quote
        if multiLine {
            advance(3)
        } else {
            advance()
        }
        while let scalar = peek() {
            if scalar == "\\" && quote == "\"" {
                advance(2)
            } else if scalar == quote && (!multiLine || (peek(1) == quote && peek(2) == quote)) {
                advance(multiLine ? 3 : 1)
                // A multi-line string may end with up to two more quotes of its own.
                while multiLine, peek() == quote { advance() }
                return
            } else if !multiLine && (scalar == "\n" || scalar == "\r") {
                throw Stop()
            } else {
                advance()
            }
        }
        throw Stop()
    }

    /// Inside arrays and inline tables: spaces, comments and line ends.
    private mutating func skipBlanks() throws {
        while let scalar = peek() {
            if scalar == "#" || scalar == "\r" || scalar == "\n" {
                try endOfLine()
            } else if scalar == " " || scalar == "\t" {
                advance()
            } else {
                return
            }
        }
    }

    // MARK: - Scanning

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private mutating func advance(_ count: Int = 1) {
        for _ in 0..<count where index < scalars.count {
            if scalars[index] == "\n" { line += 1 }
            index += 1
        }
    }

    private mutating func skipSpaces() {
        while let scalar = peek(), scalar == " " || scalar == "\t" { advance() }
    }

    private mutating func expect(_ scalar: Unicode.Scalar) throws {
        skipSpaces()
        guard peek() == scalar else { throw Stop() }
        advance()
    }
}
