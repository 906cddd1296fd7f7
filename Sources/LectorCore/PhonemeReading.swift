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

    /// A stretch of a reading (`clauses(atLeast:)`): the same phonemes and offsets.
    public init(phonemes: [Unicode.Scalar], offsets: [Int]) {
        precondition(phonemes.count == offsets.count)
        self.phonemes = phonemes
        self.offsets = offsets
    }

    /// The reading cut after clause punctuation (`, ; : . ! ?` followed by a space) into stretches
    /// of at least `minimum` phoneme scalars (the last may be shorter): a neural voice runs one at a
    /// time, so a long sentence's first sound comes after its first clause. A stretch longer than
    /// `maximum` is cut again between words into near-equal parts, because a run's memory grows
    /// with its length (Piper's decoder: about 45 MB more per 100 phoneme ids). Words are never cut.
    public func clauses(atLeast minimum: Int, atMost maximum: Int = .max) -> [PhonemeReading] {
        var cuts: [Int] = []   // each piece ends before a cut
        var start = 0
        for index in phonemes.indices.dropLast() where index + 1 - start >= minimum
            && ",;:.!?".unicodeScalars.contains(phonemes[index]) && phonemes[index + 1].properties.isWhitespace {
            cuts.append(index + 1)
            start = index + 1
        }
        if start < phonemes.count || cuts.isEmpty { cuts.append(phonemes.count) }
        var pieces: [PhonemeReading] = []
        start = 0
        for end in cuts {
            for range in split(start..<end, atMost: maximum) {
                pieces.append(PhonemeReading(phonemes: Array(phonemes[range]), offsets: Array(offsets[range])))
            }
            start = end
        }
        return pieces
    }

    /// `range` in near-equal parts of at most `maximum` scalars, each ending after a space
    /// (a part may be longer when a word is).
    private func split(_ range: Range<Int>, atMost maximum: Int) -> [Range<Int>] {
        guard range.count > maximum, maximum > 0 else { return [range] }
        let spaces = range.dropLast().filter { phonemes[$0].properties.isWhitespace }.map { $0 + 1 }
        let parts = (range.count + maximum - 1) / maximum
        var result: [Range<Int>] = []
        var start = range.lowerBound
        for part in 1..<parts {
            let target = range.lowerBound + range.count * part / parts
            guard let cut = spaces.filter({ $0 > start }).min(by: { abs($0 - target) < abs($1 - target) }) else { break }
            result.append(start..<cut)
            start = cut
        }
        result.append(start..<range.upperBound)
        return result
    }

    /// The reading with the clause punctuation of `text` (`, ; : . ! ?` ending a word) after that
    /// word's phonemes, as Piper's voices are trained: espeak-ng 1.51 gives a sentence's clauses
    /// joined by spaces, without their punctuation (its TextToPhonemesWithTerminator is newer).
    public func punctuated(by text: String) -> PhonemeReading {
        let scalars = Array(text.unicodeScalars)
        let starts = wordStarts
        var phonemes: [Unicode.Scalar] = [], offsets: [Int] = []
        for (index, start) in starts.enumerated() {
            var end = index + 1 < starts.count ? starts[index + 1].phoneme : self.phonemes.count
            let upTo = end
            // Before the space that leads into the next word.
            while end > start.phoneme, self.phonemes[end - 1].properties.isWhitespace { end -= 1 }
            phonemes += self.phonemes[start.phoneme..<end]
            offsets += self.offsets[start.phoneme..<end]
            var wordEnd = start.offset
            while wordEnd < scalars.count, !scalars[wordEnd].properties.isWhitespace { wordEnd += 1 }
            if wordEnd > start.offset, ",;:.!?".unicodeScalars.contains(scalars[wordEnd - 1]),
               phonemes.last.map({ !",;:.!?".unicodeScalars.contains($0) }) ?? false {
                phonemes.append(scalars[wordEnd - 1])
                offsets.append(start.offset)
            }
            phonemes += self.phonemes[end..<upTo]
            offsets += self.offsets[end..<upTo]
        }
        if let first = starts.first?.phoneme, first > 0 {   // anything before the first word stays first
            phonemes = Array(self.phonemes[0..<first]) + phonemes
            offsets = Array(self.offsets[0..<first]) + offsets
        }
        return PhonemeReading(phonemes: phonemes, offsets: offsets)
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
