/// espeak-ng's reading of a text for a neural voice: the IPA phonemes Piper's voices are trained
/// on, with the stress marks and word spaces `espeak_TextToPhonemes` puts in them (they are
/// phoneme ids too), and for each of their scalars the text offset of the word it was said for,
/// taken from espeak-ng's phoneme events. Words are placed by those offsets, never by counting
/// words: espeak-ng joins function words ("on the" → `ɔnðə`, both at "on") and expands numbers.
///
///     let reading = PhonemeReading(phonemes: "hiː sˈæt", events: [(0, "h"), (0, "iː"), (3, "s"), (3, "æ"), (3, "t")])
///     reading.offsets            // [0, 0, 0, 3, 3, 3, 3, 3]: the space and ˈ go with the phoneme after them
///     reading.wordStarts         // [(offset: 0, phoneme: 0), (offset: 3, phoneme: 3)]
public struct PhonemeReading: Equatable, Sendable {
    /// The phonemes as scalars, in order.
    public let phonemes: [Unicode.Scalar]
    /// The text offset (Unicode scalars) each phoneme scalar was said for.
    public let offsets: [Int]

    /// One phoneme event of espeak-ng: the scalar offset of the word it belongs to, and its IPA name.
    public typealias Event = (offset: Int, name: String)

    /// Aligns the events to `phonemes` in order: each event's name is looked for a few scalars
    /// ahead (what lies between, stress marks and spaces, goes with it); an event whose name is
    /// not there is passed over, and scalars after the last event keep its offset.
    public init(phonemes text: String, events: [Event]) {
        let scalars = Array(text.unicodeScalars)
        var offsets = [Int](repeating: -1, count: scalars.count)
        var cursor = 0
        for event in events {
            let name = Array(event.name.unicodeScalars)
            guard !name.isEmpty, !name.allSatisfy(Self.isPause) else { continue }
            guard let found = Self.find(name, in: scalars, from: cursor) else { continue }
            for index in cursor..<(found + name.count) { offsets[index] = event.offset }
            cursor = found + name.count
        }
        // What follows the last phoneme found (a closing space or mark) keeps its offset.
        var last = offsets.first(where: { $0 >= 0 }) ?? 0
        for index in offsets.indices {
            if offsets[index] < 0 { offsets[index] = last } else { last = offsets[index] }
        }
        phonemes = scalars
        self.offsets = offsets
    }

    /// Where each word begins: its text offset and the index of its first phoneme scalar.
    public var wordStarts: [(offset: Int, phoneme: Int)] {
        var starts: [(offset: Int, phoneme: Int)] = []
        for (index, offset) in offsets.enumerated() where starts.last?.offset != offset {
            starts.append((offset, index))
        }
        return starts
    }

    /// How far ahead an event's phoneme may be: past a stress mark, a space and a language mark.
    static let window = 12

    private static func find(_ name: [Unicode.Scalar], in scalars: [Unicode.Scalar], from start: Int) -> Int? {
        let end = min(scalars.count - name.count, start + window)
        guard start <= end else { return nil }
        for position in start...end where scalars[position..<(position + name.count)].elementsEqual(name) {
            return position
        }
        return nil
    }

    /// espeak-ng's pause "phonemes" (`_`, `_:`), which the phoneme string leaves out.
    private static func isPause(_ scalar: Unicode.Scalar) -> Bool { scalar == "_" || scalar == ":" }
}
