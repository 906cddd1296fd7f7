/// The SSML text as the UTF-8 bytes libxml2 reads, with what the checks ask of it: byte
/// offsets (what libxml2 reports) turned into the line and column people read, and the few
/// raw-byte searches espeak-ng's own reading calls for.
///
/// ```swift
/// let text = SSMLText("<speak>\r\n支付宝 <b/></speak>")
/// text.position(of: 19)   // (line: 2, column: 5), the "<": columns count Unicode scalars, "\r\n" is one line end
/// ```
struct SSMLText {
    let bytes: [UInt8]

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    var count: Int { bytes.count }

    /// 1-based line and column of a byte offset; "\r\n" and a lone "\r" end a line like "\n";
    /// columns count Unicode scalars (a byte that continues a UTF-8 sequence is not counted).
    func position(of offset: Int) -> (line: Int, column: Int) {
        var line = 1, column = 1, index = 0
        let end = min(offset, bytes.count)
        while index < end {
            let byte = bytes[index]
            if byte == .lineFeed || (byte == .carriageReturn && (index + 1 >= bytes.count || bytes[index + 1] != .lineFeed)) {
                line += 1
                column = 1
            } else if byte != .carriageReturn && byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return (line, column)
    }

    /// Unicode scalars in `range` (bytes).
    func scalarCount(_ range: Range<Int>) -> Int {
        bytes[range].reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
    }

    /// The text of `range`, which starts and ends on scalar boundaries.
    func string(_ range: Range<Int>) -> String {
        String(decoding: bytes[range.clamped(to: 0..<bytes.count)], as: UTF8.self)
    }

    /// The scalar starting at byte `offset`.
    func scalar(at offset: Int) -> Unicode.Scalar? {
        guard offset < bytes.count else { return nil }
        var iterator = bytes[offset...].makeIterator()
        var decoder = UTF8()
        guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return nil }
        return scalar
    }

    func firstIndex(of byte: UInt8, in range: Range<Int>) -> Int? {
        bytes[range.clamped(to: 0..<bytes.count)].firstIndex(of: byte)
    }

    func lastIndex(of byte: UInt8, in range: Range<Int>) -> Int? {
        bytes[range.clamped(to: 0..<bytes.count)].lastIndex(of: byte)
    }

    /// The first byte at or after `offset` that is not XML white space.
    func firstNonSpace(from offset: Int, before end: Int? = nil) -> Int? {
        let end = min(end ?? bytes.count, bytes.count)
        var index = offset
        while index < end {
            if !bytes[index].isXMLSpace { return index }
            index += 1
        }
        return nil
    }

    func starts(with prefix: String, at offset: Int) -> Bool {
        var index = offset
        for byte in prefix.utf8 {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
        }
        return true
    }

    /// The offset of the first occurrence of `needle` in `range`.
    func find(_ needle: String, in range: Range<Int>) -> Int? {
        let needle = Array(needle.utf8)
        guard let first = needle.first else { return nil }
        var index = range.lowerBound
        while index + needle.count <= min(range.upperBound, bytes.count) {
            if bytes[index] == first, bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    /// An XML name starting at `offset` as far as it goes (for messages about tags libxml2 refused).
    func name(at offset: Int) -> String {
        var end = offset
        while end < bytes.count, !bytes[end].isXMLSpace, !"<>/=\"'&".utf8.contains(bytes[end]) { end += 1 }
        return string(offset..<end)
    }
}

extension UInt8 {
    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let lessThan = UInt8(ascii: "<")
    static let greaterThan = UInt8(ascii: ">")
    static let ampersand = UInt8(ascii: "&")
    static let doubleQuote = UInt8(ascii: "\"")
    static let singleQuote = UInt8(ascii: "'")
    static let slash = UInt8(ascii: "/")
    static let equals = UInt8(ascii: "=")

    var isXMLSpace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }
}
