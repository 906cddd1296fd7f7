/// A text's Unicode scalars with random access by scalar offset, each kept in 1, 2 or 4 bytes as
/// the text's widest scalar needs: a book in Latin-1 takes a quarter of `[Unicode.Scalar]`'s
/// memory, one with curly quotes and dashes (the Basic Multilingual Plane) half. A chapter is
/// held this way for as long as it is narrated (`TextSegmenter`), and one chapter of a
/// plain text can be the whole file.
///
/// ```swift
/// let store = ScalarStore("Don’t")   // 2 bytes a scalar: ’ is U+2019
/// store[3]                           // "’"
/// store.count                        // 5
/// ```
public struct ScalarStore: RandomAccessCollection, Sendable, Equatable {
    /// Bytes a scalar: 1 (Latin-1), 2 (BMP) or 4; one of the arrays holds the text.
    public let width: Int
    private let latin1: [UInt8]
    private let bmp: [UInt16]
    private let full: [Unicode.Scalar]

    public init(_ text: String) {
        var widest: UInt32 = 0
        var count = 0
        for scalar in text.unicodeScalars {
            widest = Swift.max(widest, scalar.value)
            count += 1
        }
        if widest <= 0xFF {
            width = 1
            latin1 = Self.collect(text, count) { UInt8(truncatingIfNeeded: $0.value) }
            bmp = []
            full = []
        } else if widest <= 0xFFFF {
            width = 2
            latin1 = []
            bmp = Self.collect(text, count) { UInt16(truncatingIfNeeded: $0.value) }
            full = []
        } else {
            width = 4
            latin1 = []
            bmp = []
            full = Array(text.unicodeScalars)
        }
    }

    private static func collect<T>(_ text: String, _ count: Int, _ narrow: (Unicode.Scalar) -> T) -> [T] {
        var values: [T] = []
        values.reserveCapacity(count)
        for scalar in text.unicodeScalars { values.append(narrow(scalar)) }
        return values
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int {
        switch width {
        case 1: return latin1.count
        case 2: return bmp.count
        default: return full.count
        }
    }

    public subscript(position: Int) -> Unicode.Scalar {
        switch width {
        case 1: return Unicode.Scalar(latin1[position])
        // Only scalars were stored: a surrogate value cannot occur.
        case 2: return Unicode.Scalar(UInt32(bmp[position])).unsafelyUnwrapped
        default: return full[position]
        }
    }

    /// The scalars of `range` as the array slice the engine-text preparation takes.
    public func slice(_ range: Range<Int>) -> ArraySlice<Unicode.Scalar> {
        ArraySlice(self[range])
    }
}
