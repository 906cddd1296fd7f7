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
    /// Bytes a scalar: 1 (Latin-1), 2 (BMP) or 4, the least the widest scalar needs (appending
    /// a wider one widens the store); one of the arrays holds the text.
    public private(set) var width: Int
    // Inlinable access: parsers in other modules read documents scalar by scalar.
    @usableFromInline private(set) var latin1: [UInt8]
    @usableFromInline private(set) var bmp: [UInt16]
    @usableFromInline private(set) var full: [Unicode.Scalar]

    /// An empty store to append to (a document's text while it is parsed): 1 byte a scalar
    /// until a wider one comes.
    public init() {
        width = 1
        latin1 = []
        bmp = []
        full = []
    }

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

    /// Room for `count` scalars at the present width.
    public mutating func reserveCapacity(_ count: Int) {
        switch width {
        case 1: latin1.reserveCapacity(count)
        case 2: bmp.reserveCapacity(count)
        default: full.reserveCapacity(count)
        }
    }

    public mutating func append(_ scalar: Unicode.Scalar) {
        let needed = scalar.value <= 0xFF ? 1 : scalar.value <= 0xFFFF ? 2 : 4
        if needed > width { widen(to: needed) }
        switch width {
        case 1: latin1.append(UInt8(truncatingIfNeeded: scalar.value))
        case 2: bmp.append(UInt16(truncatingIfNeeded: scalar.value))
        default: full.append(scalar)
        }
    }

    public mutating func append<Scalars: Sequence<Unicode.Scalar>>(contentsOf scalars: Scalars) {
        for scalar in scalars { append(scalar) }
    }

    /// Moves the text to a wider array, keeping the room reserved so far.
    private mutating func widen(to newWidth: Int) {
        let capacity = Swift.max(latin1.capacity, bmp.capacity, full.capacity)
        if newWidth == 2 {
            var wider: [UInt16] = []
            wider.reserveCapacity(capacity)
            wider.append(contentsOf: latin1.lazy.map { UInt16($0) })
            bmp = wider
        } else {
            var wider: [Unicode.Scalar] = []
            wider.reserveCapacity(capacity)
            append(0..<count, to: &wider)
            full = wider
            bmp = []
        }
        latin1 = []
        width = newWidth
    }

    /// The scalars of `range` as the array slice the engine-text preparation takes.
    public func slice(_ range: Range<Int>) -> ArraySlice<Unicode.Scalar> {
        ArraySlice(self[range])
    }
}
