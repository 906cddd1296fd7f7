import LectorCore

/// Drops the angle brackets books put around web and mail addresses, which a speech engine would
/// otherwise read as "less than … greater than":
///
///     at <http://live-systems.org/>.          →  at http://live-systems.org/.
///     Live Systems Project <debian-live@lists.debian.org>  →  Live Systems Project debian-live@lists.debian.org
///
/// Only a bracketed run without spaces that looks like an address (`scheme://`, `www.`,
/// `mailto:`, or `name@host.domain`) loses its brackets; `cat << EOF` and `a < b > c` keep theirs.
/// Brackets a book escaped twice (`&amp;lt;name@host.org&amp;gt;`, which reads as
/// `&lt;name@host.org&gt;`) go too.
/// Applied to every content document's text, read strictly or leniently alike, with the
/// offsets of anchors, segments, headings and the read-along markup moved to match (a run loses
/// the brackets it held: the page shows the address without them, as it is heard).
enum AddressBrackets {
    static func removed(from document: DocumentText) -> DocumentText {
        removedMovingOffsets(from: document).document
    }

    /// The same, and how an offset of the old text moves (for ranges kept outside the document,
    /// like the moved notes' ranges in their `NotesText`).
    static func removedMovingOffsets(from document: DocumentText) -> (document: DocumentText, moved: (Int) -> Int) {
        let deleted = bracketPositions(in: document.scalars)
        guard !deleted.isEmpty else { return (document, { $0 }) }
        var result = document
        var kept: [Unicode.Scalar] = []
        kept.reserveCapacity(document.scalars.count - deleted.count)
        var next = 0
        for (index, scalar) in document.scalars.enumerated() {
            if next < deleted.count, deleted[next] == index {
                next += 1
                continue
            }
            kept.append(scalar)
        }
        /// The new offset of old offset `offset`: minus the deleted positions before it.
        func moved(_ offset: Int) -> Int {
            var low = 0, high = deleted.count
            while low < high {
                let middle = (low + high) / 2
                if deleted[middle] < offset { low = middle + 1 } else { high = middle }
            }
            return offset - low
        }
        result.scalars = ScalarStore(scalars: kept)
        result.anchors = document.anchors.mapValues(moved)
        result.segments = document.segments.map { segment in
            var segment = segment
            segment.range = moved(segment.range.lowerBound)..<moved(segment.range.upperBound)
            return segment
        }
        result.headings = document.headings.map { heading in
            DocumentHeading(offset: moved(heading.offset), end: moved(heading.end), text: removed(from: heading.text))
        }
        result.markup = document.markup?.moved(moved)
        result.notes = document.notes.movingOffsets(moved)
        result.languages = document.languages.map {
            LanguageRun(range: moved($0.range.lowerBound)..<max(moved($0.range.lowerBound), moved($0.range.upperBound)),
                        language: $0.language)
        }
        result.phonemeRuns = document.phonemeRuns.map {
            PhonemeRun(range: moved($0.range.lowerBound)..<max(moved($0.range.lowerBound), moved($0.range.upperBound)),
                       phonemes: $0.phonemes, alphabet: $0.alphabet)
        }
        return (result, moved)
    }

    static func removed(from text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        let deleted = Set(bracketPositions(in: scalars))
        guard !deleted.isEmpty else { return text }
        var view = String.UnicodeScalarView()
        for (index, scalar) in scalars.enumerated() where !deleted.contains(index) { view.append(scalar) }
        return String(view)
    }

    /// Positions of the brackets around each address, ascending: one position each for `<`
    /// and `>`, four for a doubly escaped `&lt;` and `&gt;` (a book that wrote `&amp;lt;`).
    static func bracketPositions<Text: RandomAccessCollection<Unicode.Scalar>>(in scalars: Text) -> [Int] where Text.Index == Int {
        var positions: [Int] = []
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let escaped = matches(escapedOpen, in: scalars, at: index)
            guard scalars[index] == "<" || escaped else {
                index += 1
                continue
            }
            let opener = escaped ? escapedOpen.count : 1
            var end = index + opener
            // Stops at the next opener too, so runs of "&lt;" cost one pass, not 2048 steps each.
            while end < scalars.endIndex, end - index <= 2048, scalars[end] != ">", scalars[end] != "<",
                  !scalars[end].properties.isWhitespace,
                  !(escaped && (matches(escapedClose, in: scalars, at: end)
                                || matches(escapedOpen, in: scalars, at: end))) {
                end += 1
            }
            let closer = escaped ? escapedClose.count : 1
            let closed = escaped ? matches(escapedClose, in: scalars, at: end) : end < scalars.endIndex && scalars[end] == ">"
            if closed, looksLikeAddress(scalars[(index + opener)..<end]) {
                positions += Array(index..<(index + opener)) + Array(end..<(end + closer))
                index = end + closer
            } else {
                index += 1
            }
        }
        return positions
    }

    private static let escapedOpen: [Unicode.Scalar] = ["&", "l", "t", ";"]
    private static let escapedClose: [Unicode.Scalar] = ["&", "g", "t", ";"]

    private static func matches<Text: RandomAccessCollection<Unicode.Scalar>>(_ pattern: [Unicode.Scalar], in scalars: Text, at index: Int) -> Bool
        where Text.Index == Int {
        guard index + pattern.count <= scalars.endIndex else { return false }
        return scalars[index..<(index + pattern.count)].elementsEqual(pattern)
    }

    static func looksLikeAddress(_ run: some Sequence<Unicode.Scalar>) -> Bool {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: run)
        let text = String(view).lowercased()
        if text.contains("://") || text.hasPrefix("www.") || text.hasPrefix("mailto:") { return true }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { return false }
        var host = parts[1]
        while host.hasSuffix(".") { host = host.dropLast() }   // "<list@lists.debian.org.>"
        return !host.hasPrefix(".") && host.contains(".")
    }
}
