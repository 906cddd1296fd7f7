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
    // Inlinable access: parsers in other modules read documents scalar by scalar.
    @usableFromInline let latin1: [UInt8]
    @usableFromInline let bmp: [UInt16]
    @usableFromInline let full: [Unicode.Scalar]

    public init(_ text: String) {
        var widest: UInt32 = 0
        var count = 0
        for scalar in text.unicodeScalars {
            widest = Swift.max(widest, scalar.value)
            count += 1
        }
        self.init(text.unicodeScalars, count: count, widest: widest)
    }

    /// The same from scalars in hand (a parse's output), so a document is kept compact once built.
    public init(scalars: [Unicode.Scalar]) {
        self.init(scalars, count: scalars.count, widest: scalars.reduce(UInt32(0)) { Swift.max($0, $1.value) })
    }

    /// Both public ways in: the scalars, how many there are and the widest value (one pass
    /// over a String finds both), each width's array made at its exact size.
    private init<Scalars: Sequence<Unicode.Scalar>>(_ scalars: Scalars, count: Int, widest: UInt32) {
        if widest <= 0xFF {
            width = 1
            latin1 = Self.collect(scalars, count) { UInt8(truncatingIfNeeded: $0.value) }
            bmp = []
            full = []
        } else if widest <= 0xFFFF {
            width = 2
            latin1 = []
            bmp = Self.collect(scalars, count) { UInt16(truncatingIfNeeded: $0.value) }
            full = []
        } else {
            width = 4
            latin1 = []
            bmp = []
            full = Self.collect(scalars, count) { $0 }
        }
    }

    private static func collect<Scalars: Sequence<Unicode.Scalar>, T>(_ scalars: Scalars, _ count: Int,
                                                                      _ narrow: (Unicode.Scalar) -> T) -> [T] {
        var values: [T] = []
        values.reserveCapacity(count)
        for scalar in scalars { values.append(narrow(scalar)) }
        return values
    }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int {
        switch width {
        case 1: return latin1.count
        case 2: return bmp.count
        default: return full.count
        }
    }

    @inlinable public subscript(position: Int) -> Unicode.Scalar {
        switch width {
        case 1: return Unicode.Scalar(latin1[position])
        // Only scalars were stored: a surrogate value cannot occur.
        case 2: return Unicode.Scalar(UInt32(bmp[position])).unsafelyUnwrapped
        default: return full[position]
        }
    }

    /// Appends the scalars of `range` to `array`, one width switch for the whole run (a chapter
    /// assembled from its documents).
    public func append(_ range: Range<Int>, to array: inout [Unicode.Scalar]) {
        switch width {
        case 1: array.append(contentsOf: latin1[range].lazy.map { Unicode.Scalar($0) })
        case 2: array.append(contentsOf: bmp[range].lazy.map { Unicode.Scalar(UInt32($0)).unsafelyUnwrapped })
        default: array.append(contentsOf: full[range])
        }
    }

    /// The scalars of `range` as the array slice the engine-text preparation takes.
    public func slice(_ range: Range<Int>) -> ArraySlice<Unicode.Scalar> {
        ArraySlice(self[range])
    }
}
