/// Text rewritten before synthesis, with the way back to the original: `SpeakingRange` must report
/// offsets into the text the client sent, while espeak-ng reports offsets into what it was given.
///
/// Offsets are Unicode scalar offsets (as `SpeakingRange`'s). The rewrite is a list of edits, each
/// replacing an original span by a new one; text between edits is copied one to one. A range that
/// touches an edit maps to the whole original span of that edit, so a word inside a rewritten
/// amount highlights the whole amount.
///
/// ```swift
/// let rewrite = NumberReading.rewrite("PIN 1234", mode: .digits, language: "en")
/// rewrite.text                                      // "PIN 1 2 3 4"
/// rewrite.originalRange(start: 6, length: 1)        // (start: 5, length: 1): the "2"
/// ```
public struct TextRewrite: Equatable, Sendable {
    struct Edit: Equatable, Sendable {
        var newStart: Int, newEnd: Int
        var originalStart: Int, originalEnd: Int
    }

    public private(set) var text = ""
    private(set) var edits: [Edit] = []
    private var newCount = 0
    private var originalCount = 0
    /// Rewrites applied before this one, first first: this one rewrote the last one's text.
    private var earlier: [TextRewrite] = []

    init() {}

    /// The identity rewrite of `text`.
    public init(unchanged text: String) {
        self.text = text
        newCount = text.unicodeScalars.count
        originalCount = newCount
    }

    public var isIdentity: Bool { edits.isEmpty && earlier.allSatisfy(\.isIdentity) }

    /// This rewrite of `first.text`, mapping back through `first` to the text `first` rewrote:
    /// numbers read as digits, then a lexicon's words replaced.
    ///
    ///     let digits = NumberReading.rewrite("PIN 12", mode: .digits, language: "en")   // "PIN 1 2"
    ///     let both = pronouncer.prepare(digits.text).rewrite.applied(after: digits)
    public func applied(after first: TextRewrite) -> TextRewrite {
        var chained = self
        chained.earlier = first.earlier + [first.withoutEarlier] + earlier
        return chained
    }

    private var withoutEarlier: TextRewrite {
        var copy = self
        copy.earlier = []
        return copy
    }

    /// The original offset where the new text's `offset` starts (an offset inside an edit maps to
    /// the start of the edit's original span).
    public func originalOffset(_ offset: Int) -> Int {
        earlier.reversed().reduce(ownOriginalOffset(offset)) { $1.ownOriginalOffset($0) }
    }

    /// Maps `[start, start + length)` of the new text to the original text.
    public func originalRange(start: Int, length: Int) -> (start: Int, length: Int) {
        earlier.reversed().reduce(ownOriginalRange(start: start, length: length)) {
            $1.ownOriginalRange(start: $0.start, length: $0.length)
        }
    }

    private func ownOriginalOffset(_ offset: Int) -> Int {
        guard let edit = lastEdit(startingAtOrBefore: offset) else { return offset }
        return offset < edit.newEnd ? edit.originalStart : offset - edit.newEnd + edit.originalEnd
    }

    private func ownOriginalRange(start: Int, length: Int) -> (start: Int, length: Int) {
        let from = ownOriginalOffset(start)
        let end = start + max(length, 0)
        var to = end
        if let edit = lastEdit(startingBefore: end) {
            to = end <= edit.newEnd ? edit.originalEnd : end - edit.newEnd + edit.originalEnd
        }
        return (from, max(to, from) - from)
    }

    // MARK: - Building

    mutating func keep(_ scalar: Unicode.Scalar) {
        text.unicodeScalars.append(scalar)
        newCount += 1
        originalCount += 1
    }

    /// Replaces the next `originalCount` original scalars (0: an insertion) by `replacement`.
    mutating func replace(originalCount count: Int, with replacement: String) {
        let added = replacement.unicodeScalars.count
        text.unicodeScalars.append(contentsOf: replacement.unicodeScalars)
        edits.append(Edit(newStart: newCount, newEnd: newCount + added,
                          originalStart: originalCount, originalEnd: originalCount + count))
        newCount += added
        originalCount += count
    }

    private func lastEdit(startingAtOrBefore offset: Int) -> Edit? {
        lastEdit { $0.newStart <= offset }
    }

    private func lastEdit(startingBefore offset: Int) -> Edit? {
        lastEdit { $0.newStart < offset }
    }

    /// Binary search: edits are sorted by `newStart`.
    private func lastEdit(where isBefore: (Edit) -> Bool) -> Edit? {
        var low = 0, high = edits.count
        while low < high {
            let mid = (low + high) / 2
            if isBefore(edits[mid]) { low = mid + 1 } else { high = mid }
        }
        return low > 0 ? edits[low - 1] : nil
    }
}
