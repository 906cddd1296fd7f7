/// A start tag as written, read from its bytes: espeak-ng reads tags as raw text (it ends a tag
/// at the first ">", copies attribute values without decoding entities, and ends a value at
/// `"` whatever the opening quote), so its rules are about the characters written, which an
/// XML parser decodes away. Used on tags libxml2 has accepted, and on the part of a tag it
/// read before an error (to say which attribute the error is in).
///
/// ```swift
/// SSMLTag(SSMLText("<break time='1s'/>"), at: 0).attributes[0]   // name "time", value 13..<15, quote '
/// ```
struct SSMLTag {
    struct Attribute {
        var name: String
        var nameStart: Int
        /// The opening quote, or nil if the tag ended before the value started.
        var quote: UInt8?
        /// The value between the quotes (to `end` if never closed).
        var value: Range<Int>
        var closed: Bool
    }

    var name: String
    var attributes: [Attribute] = []

    /// Reads the tag starting at the "<" at `start`, up to `end` at most.
    init(_ text: SSMLText, at start: Int, end: Int? = nil) {
        let bytes = text.bytes, end = min(end ?? bytes.count, bytes.count)
        name = text.name(at: start + 1)
        var index = start + 1 + name.utf8.count
        while index < end {
            while index < end, bytes[index].isXMLSpace { index += 1 }
            guard index < end, bytes[index] != .greaterThan, bytes[index] != .slash else { return }
            let nameStart = index
            let attributeName = text.name(at: index)
            guard !attributeName.isEmpty else { return }
            index += attributeName.utf8.count
            while index < end, bytes[index].isXMLSpace { index += 1 }
            guard index < end, bytes[index] == .equals else {
                attributes.append(Attribute(name: attributeName, nameStart: nameStart, quote: nil, value: index..<index, closed: false))
                return
            }
            index += 1
            while index < end, bytes[index].isXMLSpace { index += 1 }
            guard index < end, bytes[index] == .doubleQuote || bytes[index] == .singleQuote else {
                attributes.append(Attribute(name: attributeName, nameStart: nameStart, quote: nil, value: index..<index, closed: false))
                return
            }
            let quote = bytes[index]
            let valueStart = index + 1
            let close = text.firstIndex(of: quote, in: valueStart..<end)
            attributes.append(Attribute(name: attributeName, nameStart: nameStart, quote: quote,
                                        value: valueStart..<(close ?? end), closed: close != nil))
            guard let close else { return }
            index = close + 1
        }
    }
}
