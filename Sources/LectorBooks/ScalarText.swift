extension RandomAccessCollection where Element == Unicode.Scalar, Index == Int {
    /// `range`, clamped to the text, without the whitespace at either end (the separators
    /// between blocks), so a block's span names its words only.
    func trimmedRange(_ range: Range<Int>) -> Range<Int> {
        var lower = Swift.min(Swift.max(startIndex, range.lowerBound), endIndex)
        var upper = Swift.max(lower, Swift.min(endIndex, range.upperBound))
        while lower < upper, self[lower].properties.isWhitespace { lower += 1 }
        while upper > lower, self[upper - 1].properties.isWhitespace { upper -= 1 }
        return lower..<upper
    }
}
